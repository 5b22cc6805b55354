/**
 * The entry point of `npm start`, the compiled binary and the operator commands. It
 * imports nothing heavy: the server first restarts itself with the engine's memory hint
 * (src/lib/engine-memory.ts), and only then loads the app (src/main.ts).
 */
import { startEngineWithRamHint } from './lib/engine-memory'

const [cmd, ...rest] = process.argv.slice(2)
if (!cmd) startEngineWithRamHint()
// The app is imported after the restart above; in the compiled binary it is a chunk of its own (scripts/build.ts).
import('./main')
  .then((m) => m.run(cmd, rest))
  .catch((err) => {
    // the message and its frames: Bun's own printing of an error adds the source line, which in
    // the compiled binary is kilobytes of minified bundle
    console.error(err instanceof Error ? (err.stack ?? `${err.name}: ${err.message}`) : err)
    process.exit(1)
  })
