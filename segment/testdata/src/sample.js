import dayjs from 'dayjs'
const util = require('./util')

/**
 * Formats.
 */
export function format(d) {
  return util.pad(d)
}

const parse = (s) => {
  return new Date(s)
}

class Foo extends Bar {
  constructor() {
    super()
    this.x = 1
  }

  get value() { return this.x }
}

proto.add = function (n) {
  return this.clone().set(n)
}

export default Foo
