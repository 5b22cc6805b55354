declare module '*/standalone.js' {
  const path: string
  export default path
}
