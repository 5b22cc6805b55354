/**
 * The docs UI script, as a file Bun embeds in the compiled binary. Under Deno (no
 * file imports) the entry point reads the same file from node_modules instead.
 */
import scalarPath from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' }

export const scalarScript = () => Bun.file(scalarPath)
