(function () {
  'use strict'

  function double(n) {
    return n * 2
  }

  window.quad = function (n) {
    return double(double(n))
  }
}());

export default function named(o) {
  const inside = () => o
  return inside()
}
