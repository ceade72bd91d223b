const small = { a: 1 }
const expressions = {
  A: [/\d/, 'a'],
  B: [/\d\d/, 'b'],
}
export const LIST = [
  1,
  2,
]
function f() {
  return expressions.A
}
