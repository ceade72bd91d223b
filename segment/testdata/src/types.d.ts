import { PluginFunc, ConfigType } from 'dayjs'

declare const plugin: PluginFunc
export = plugin

declare module 'dayjs' {
  interface Dayjs {
    /** Converts to UTC, keeping the local time when asked. */
    utc(keepLocalTime?: boolean): Dayjs

    local(): Dayjs

    utcOffset(): number
    utcOffset(offset: number | string, keepLocalTime?: boolean): Dayjs
  }

  export function utc(config?: ConfigType, format?: string): Dayjs
}

export declare class Duration {
  constructor(input: string | number, unit?: string)

  clone(): Duration

  humanize(withSuffix?: boolean): string
}

export type DurationUnit = 'days' | 'hours'
