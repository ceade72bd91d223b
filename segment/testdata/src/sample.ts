import { Base } from "./base";

export interface Options {
  name: string;
  size?: number;
}

type Handler = (o: Options) => void;

export enum Color {
  Red,
  Green,
}

/** A store of things. */
export class Store<T> extends Base implements Iterable<T> {
  private items: T[] = [];

  constructor(private readonly opts: Options) {
    super();
  }

  @memoize
  add(item: T): void {
    this.items.push(item);
    notify(this.opts);
  }
}

export function notify(o: Options): void {
  console.log(o.name);
}

namespace Util {
  export function clamp(x: number): number {
    return Math.max(0, x);
  }
}
