/**
 * The docs UI script, as a file Bun embeds in the compiled binary. The build
 * (scripts/build.ts) swaps this module for one that embeds a gzip-compressed copy,
 * served as is to browsers that take gzip. Under Deno (no file imports) the entry
 * point reads the same file from node_modules instead.
 */
import scalarPath from '../../node_modules/@scalar/api-reference/dist/browser/standalone.js' with { type: 'file' }
import type { DocsScript } from './openapi'

export const scalarScript: DocsScript = { body: () => Bun.file(scalarPath) }
