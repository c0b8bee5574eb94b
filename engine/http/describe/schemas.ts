import { anyJsonValue } from '../../platform/validation/json-value.ts';
import { CURSOR_MAX_LENGTH, SEARCH_MAX_LENGTH } from '../../core/describe/argument-options.ts';

/** JSON Schemas of what the describe routes answer (descriptions.ts builds the values) and of their inputs. */
const nullableString = { type: ['string', 'null'] } as const;

export const versionQuery = {
  properties: {
    version: {
      // No pattern: the handler reads any name and answers one the app lacks (latest, say) with 404, as this says.
      type: 'string',
      minLength: 1,
      description: 'published (the default), draft, or a version number. Any other name, or a version the app lacks, is 404 APP_VERSION_NOT_FOUND; empty is 400 VALIDATION_ERROR.',
      examples: ['published', 'draft', '3'],
    },
  },
} as const;

export const appDescription = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name', 'description', 'website', 'published', 'versions', 'draft'],
  properties: {
    id: { type: 'string' },
    slug: { type: 'string' },
    name: { type: 'string' },
    description: nullableString,
    website: nullableString,
    published: { type: ['integer', 'null'], description: 'The numbered version published resolves to; null while the app has only a draft.' },
    versions: { type: 'array', items: { type: 'integer' } },
    draft: { type: 'boolean' },
  },
} as const;

const summaryProperties = {
  id: { type: 'string' },
  slug: { type: 'string' },
  name: { type: 'string' },
  description: nullableString,
  operation: { type: 'string' },
  method: { type: 'string' },
  path: { type: 'string' },
  cursorArgument: { ...nullableString, description: 'When the action pages (its own pagination or the API\'s): send meta.cursor back, unchanged, as this argument.' },
} as const;

export const actionSummary = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(summaryProperties),
  properties: summaryProperties,
} as const;

const argumentProperties = {
  key: { type: 'string' },
  externalKey: nullableString,
  label: { type: 'string' },
  description: nullableString,
  dataType: { type: 'string' },
  location: nullableString,
  placedIn: nullableString,
  parent: nullableString,
  required: { type: 'boolean' },
  hidden: { type: 'boolean' },
  default: { ...anyJsonValue, description: 'As written; null when absent.' },
  mapper: { ...nullableString, description: 'The JSONata source of the mapper.' },
  escape: {
    type: ['object', 'null'],
    additionalProperties: false,
    properties: {
      characters: { type: 'string' },
      prefix: { type: 'string' },
      style: { enum: ['Sql', 'Backslash'] },
      pairs: {
        type: 'array',
        items: { type: 'object', additionalProperties: false, required: ['from', 'to'], properties: { from: { type: 'string' }, to: { type: 'string' } } },
      },
    },
    description:
      'As written: how the value is escaped wherever the request uses it, one way: characters each get prefix written before them; style Sql doubles quotes; style Backslash writes a backslash before quotes (or characters) and backslashes; pairs replace each from by its to. Null when absent.',
  },
  integer: { type: 'boolean', description: 'Number values must be whole numbers (each value, with multipleValues); false when absent.' },
  minimum: { type: ['number', 'null'], description: 'The smallest Number value accepted (inclusive); null when absent.' },
  maximum: { type: ['number', 'null'], description: 'The largest Number value accepted (inclusive); null when absent.' },
  minLength: { type: ['integer', 'null'], description: 'The shortest String value accepted, in characters (code points); null when absent.' },
  maxLength: { type: ['integer', 'null'], description: 'The longest String value accepted, in characters (code points); null when absent.' },
  pattern: { ...nullableString, description: 'A regular expression (JavaScript syntax, run on RE2) a String value must match somewhere (anchored only by ^ and $); null when absent.' },
  component: nullableString,
  multipleValues: {
    type: ['object', 'null'],
    additionalProperties: false,
    required: ['dataType'],
    properties: { dataType: { enum: ['String', 'Number', 'Boolean', 'Date'] }, delimiter: { type: 'string' } },
    description: 'As written: the argument takes a list of single values; null when absent.',
  },
  arrayStyle: {
    type: ['string', 'null'],
    enum: ['Indices', 'Brackets', 'Repeat', 'Comma', null],
    description: "How its arrays are written in a form body (Indices o:tag[0]=a, Brackets o:tag[]=a, Repeat o:tag=a&o:tag=b, Comma o:tag=a,b), instead of the API's; null when absent.",
  },
  format: {
    type: ['string', 'null'],
    enum: ['email', 'uri', 'date-time', 'ISO8601', 'Date', 'UnixSeconds', 'UnixMilliseconds', 'HttpDate', null],
    description: 'On a String, the form its value must have: email, uri (absolute, with a scheme), date-time (RFC 3339). On a Date, how it is sent: ISO8601, Date, UnixSeconds, UnixMilliseconds, HttpDate (RFC 9110). Null when absent.',
  },
  list: {
    type: ['object', 'null'],
    additionalProperties: anyJsonValue,
    required: ['type', 'optionsPath'],
    properties: { type: { type: 'string' }, optionsPath: { type: 'string', description: 'Where its options are: POST it.' } },
    description: 'The List settings as written, and where to ask for the options; null when the argument is not a List.',
  },
} as const;

export const argumentDescription = {
  type: 'object',
  additionalProperties: false,
  required: Object.keys(argumentProperties),
  properties: argumentProperties,
} as const;

export const actionDescription = {
  type: 'object',
  additionalProperties: false,
  required: [...Object.keys(summaryProperties), 'arguments'],
  properties: { ...summaryProperties, arguments: { type: 'array', items: argumentDescription } },
} as const;

export const listOption = {
  type: 'object',
  additionalProperties: false,
  required: ['value', 'label'],
  properties: { value: { type: ['string', 'number', 'boolean'] }, label: { type: 'string' } },
} as const;

/** POST .../arguments/{key}/options: a Lookup needs the connection; the other lists need nothing. */
export const optionsBody = {
  type: 'object',
  // Other keys are ignored.
  additionalProperties: true,
  properties: {
    connectionId: { type: 'string', minLength: 1, description: 'The connection a Lookup list runs its action with (required for Lookup lists).' },
    arguments: { type: 'object', additionalProperties: anyJsonValue, description: 'The argument values filled in so far, passed to the Lookup action.' },
    search: {
      type: 'string',
      maxLength: SEARCH_MAX_LENGTH,
      description: "Only options whose label or value contains this text (any case). A Lookup with searchArgument passes it to its action; without one the page the app answered is filtered.",
    },
    cursor: {
      type: 'string',
      maxLength: CURSOR_MAX_LENGTH,
      description: "A Lookup's next page: the meta.cursor of the previous answer, passed to the lookup action as its cursor argument. Other lists have one page.",
    },
  },
} as const;

/** The options answer's meta beyond the list's identity: present only when they apply. */
export const optionsPageMeta = {
  cursor: { type: 'string', description: "A Lookup's next page: send it back as cursor. Absent on the last page." },
  searched: {
    enum: ['app', 'page', 'all'],
    description: 'Present when search was given. app: the lookup action searched (its searchArgument); page: the gateway filtered only the page the app answered, so later pages (meta.cursor) may hold more matches; all: every option of a Fixed, Country or Currency list was filtered.',
  },
} as const;

export const appRef = {
  type: 'object',
  additionalProperties: false,
  required: ['id', 'slug', 'name'],
  properties: { id: { type: 'string' }, slug: { type: 'string' }, name: { type: 'string' } },
} as const;

export const versionName = { type: ['integer', 'string'], description: 'The version answered: a number, or "draft".' } as const;
