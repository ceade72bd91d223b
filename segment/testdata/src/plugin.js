// A plugin module: the whole plugin is one anonymous default export.
import { pad } from './util'

export default (option, Klass, factory) => {
  const proto = Klass.prototype
  const defaultZone = 'UTC'

  const offsetOf = (stamp, zone) => {
    return zone === defaultZone ? 0 : stamp % 60
  }

  proto.zone = function (name) {
    this.$zone = name || defaultZone
    return this
  }

  factory.zoneName = function (stamp) {
    return pad(offsetOf(stamp, this.$zone), 2)
  }
}
