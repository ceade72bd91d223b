// A component: the default export is one anonymous function that returns
// markup, so it is one piece of code, not a module of definitions.
import { useState } from 'react'

export default function () {
  const [count, setCount] = useState(0)
  const increment = () => setCount(count + 1)
  const label = count === 1 ? 'click' : 'clicks'
  const style = { padding: 4, margin: 2 }
  if (count > 10) {
    console.warn('many clicks')
  }
  return (
    <div style={style}>
      <button onClick={increment}>
        {count} {label}
      </button>
    </div>
  )
}
