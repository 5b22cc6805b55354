declare module '*/scalar-standalone.js' {
  const path: string
  export default path
}
