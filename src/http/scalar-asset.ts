/**
 * The docs UI script, as a file Bun embeds in the compiled binary. The build
 * (scripts/build.ts) swaps this module for one that embeds a gzip-compressed copy,
 * served as is to browsers that take gzip. Under Deno (no file imports) the entry
 * point reads the same file from disk instead. The file is Scalar's standalone bundle
 * (@scalar/api-reference, MIT, licence beside it), carried in the repository: docs/operations.md,
 * "The docs UI script", says which version and how to update it.
 */
import scalarPath from './assets/scalar-standalone.js' with { type: 'file' }
import type { DocsScript } from './openapi'

export const scalarScript: DocsScript = { body: () => Bun.file(scalarPath) }
