/**
 * Turns TypeBox's validation errors into the one issue shape of every validation failure
 * (ValidationIssue in src/lib/errors.ts): the field's JSON pointer in `path`, then the
 * Ajv-style fields a schema's 400 has always shown (`instancePath`, `schemaPath`, `keyword`, `params`, `message`).
 */
import { ValueErrorType } from '@sinclair/typebox/errors'
import type { ValidationIssue } from './errors'

interface TypeBoxError {
  type: number
  path: string
  message: string
  value?: unknown
  schema: Record<string, unknown>
}

const KEYWORDS: Partial<Record<ValueErrorType, [keyword: string, param?: string]>> = {
  [ValueErrorType.ArrayMaxItems]: ['maxItems', 'maxItems'],
  [ValueErrorType.ArrayMinItems]: ['minItems', 'minItems'],
  [ValueErrorType.ArrayUniqueItems]: ['uniqueItems'],
  [ValueErrorType.ArrayContains]: ['contains'],
  [ValueErrorType.IntegerMaximum]: ['maximum', 'maximum'],
  [ValueErrorType.IntegerMinimum]: ['minimum', 'minimum'],
  [ValueErrorType.IntegerExclusiveMaximum]: ['exclusiveMaximum', 'exclusiveMaximum'],
  [ValueErrorType.IntegerExclusiveMinimum]: ['exclusiveMinimum', 'exclusiveMinimum'],
  [ValueErrorType.IntegerMultipleOf]: ['multipleOf', 'multipleOf'],
  [ValueErrorType.NumberMaximum]: ['maximum', 'maximum'],
  [ValueErrorType.NumberMinimum]: ['minimum', 'minimum'],
  [ValueErrorType.NumberExclusiveMaximum]: ['exclusiveMaximum', 'exclusiveMaximum'],
  [ValueErrorType.NumberExclusiveMinimum]: ['exclusiveMinimum', 'exclusiveMinimum'],
  [ValueErrorType.NumberMultipleOf]: ['multipleOf', 'multipleOf'],
  [ValueErrorType.ObjectAdditionalProperties]: ['additionalProperties'],
  [ValueErrorType.ObjectMaxProperties]: ['maxProperties', 'maxProperties'],
  [ValueErrorType.ObjectMinProperties]: ['minProperties', 'minProperties'],
  [ValueErrorType.ObjectRequiredProperty]: ['required'],
  [ValueErrorType.StringFormat]: ['format', 'format'],
  [ValueErrorType.StringFormatUnknown]: ['format', 'format'],
  [ValueErrorType.StringMaxLength]: ['maxLength', 'maxLength'],
  [ValueErrorType.StringMinLength]: ['minLength', 'minLength'],
  [ValueErrorType.StringPattern]: ['pattern', 'pattern'],
  [ValueErrorType.Literal]: ['const'],
  [ValueErrorType.Union]: ['anyOf'],
  [ValueErrorType.Not]: ['not'],
  [ValueErrorType.Never]: ['not'],
}

const TYPE_NAMES: Partial<Record<ValueErrorType, string>> = {
  [ValueErrorType.Array]: 'array', [ValueErrorType.Boolean]: 'boolean', [ValueErrorType.Integer]: 'integer',
  [ValueErrorType.Null]: 'null', [ValueErrorType.Number]: 'number', [ValueErrorType.Object]: 'object',
  [ValueErrorType.String]: 'string', [ValueErrorType.BigInt]: 'integer', [ValueErrorType.Tuple]: 'array',
}

function jsonPointerToSchemaPath(instancePath: string, keyword: string): string {
  const segments = instancePath.split('/').filter(Boolean).map((s) => (/^\d+$/.test(s) ? 'items' : `properties/${s}`))
  return `#/${[...segments, keyword].join('/')}`
}

export function toValidationIssues(errors: readonly TypeBoxError[]): ValidationIssue[] {
  const seen = new Set<string>()
  const out: ValidationIssue[] = []
  for (const e of errors) {
    let issue: ValidationIssue
    const typeName = TYPE_NAMES[e.type as ValueErrorType]
    if ((typeName || e.type === ValueErrorType.ObjectRequiredProperty) && e.value === undefined && e.path !== '') {
      // A missing property arrives as a type error on the absent value: report it as `required`.
      const parts = e.path.split('/')
      const missing = parts.pop() ?? ''
      const parent = parts.join('/')
      issue = {
        path: e.path,
        instancePath: parent,
        schemaPath: jsonPointerToSchemaPath(parent, 'required'),
        keyword: 'required',
        params: { missingProperty: missing },
        message: `must have required property '${missing}'`,
      }
    } else if (typeName) {
      issue = {
        path: e.path,
        instancePath: e.path,
        schemaPath: jsonPointerToSchemaPath(e.path, 'type'),
        keyword: 'type',
        params: { type: typeName },
        message: `must be ${typeName}`,
      }
    } else {
      const [keyword, param] = KEYWORDS[e.type as ValueErrorType] ?? ['type']
      const params: Record<string, unknown> = {}
      if (param && e.schema && param in e.schema) params[param] = e.schema[param]
      if (keyword === 'additionalProperties') params.additionalProperty = e.path.split('/').pop()
      if (keyword === 'const') params.allowedValue = e.schema?.const
      issue = {
        path: e.path,
        instancePath: keyword === 'additionalProperties' ? e.path.split('/').slice(0, -1).join('/') : e.path,
        schemaPath: jsonPointerToSchemaPath(e.path, keyword),
        keyword,
        params,
        message: ajvMessage(keyword, params, e.message),
      }
    }
    const key = `${issue.instancePath}|${issue.keyword}|${issue.message}`
    if (!seen.has(key)) {
      seen.add(key)
      out.push(issue)
    }
  }
  return out
}

function ajvMessage(keyword: string, params: Record<string, unknown>, fallback: string): string {
  switch (keyword) {
    case 'minLength': return `must NOT have fewer than ${params.minLength} characters`
    case 'maxLength': return `must NOT have more than ${params.maxLength} characters`
    case 'pattern': return `must match pattern "${params.pattern}"`
    case 'minimum': return `must be >= ${params.minimum}`
    case 'maximum': return `must be <= ${params.maximum}`
    case 'exclusiveMinimum': return `must be > ${params.exclusiveMinimum}`
    case 'exclusiveMaximum': return `must be < ${params.exclusiveMaximum}`
    case 'minItems': return `must NOT have fewer than ${params.minItems} items`
    case 'maxItems': return `must NOT have more than ${params.maxItems} items`
    case 'format': return `must match format "${params.format}"`
    case 'additionalProperties': return 'must NOT have additional properties'
    case 'anyOf': return 'must match a schema in anyOf'
    case 'const': return 'must be equal to constant'
    default: return fallback
  }
}

/**
 * Elysia drops properties a schema does not name before validating. Where a silently
 * ignored name would surprise the caller (a misspelt setting), this finds them in the
 * body as sent, as Ajv's `additionalProperties` issues.
 */
export function unknownProperties(schema: unknown, value: unknown, path = ''): ValidationIssue[] {
  const s = schema as { properties?: Record<string, unknown>; anyOf?: unknown[]; allOf?: unknown[]; patternProperties?: unknown; additionalProperties?: unknown }
  if (!value || typeof value !== 'object' || Array.isArray(value)) return []
  if (s.anyOf) {
    const objects = s.anyOf.filter((x) => (x as { properties?: unknown }).properties)
    if (!objects.length) return []
    const results = objects.map((x) => unknownProperties(x, value, path))
    return results.find((r) => r.length === 0) ?? results[0]!
  }
  if (!s.properties || s.patternProperties || (s.additionalProperties && typeof s.additionalProperties === 'object')) return []
  const out: ValidationIssue[] = []
  for (const [key, v] of Object.entries(value)) {
    const sub = s.properties[key]
    if (sub === undefined) {
      out.push({
        path: `${path}/${key}`,
        instancePath: path,
        schemaPath: jsonPointerToSchemaPath(path, 'additionalProperties'),
        keyword: 'additionalProperties',
        params: { additionalProperty: key },
        message: 'must NOT have additional properties',
      })
    } else out.push(...unknownProperties(sub, v, `${path}/${key}`))
  }
  return out
}
