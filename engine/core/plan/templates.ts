import type { FieldProblem } from '../../platform/errors/index.ts';
import { addOnce } from '../arguments/host-variables.ts';
import { LEFT_OUT } from '../arguments/placement.ts';
import { problem } from '../arguments/rules.ts';
import { encodeFor, urlTemplateParts, type UrlPart } from '../arguments/url-template.ts';

/**
 * Templates split once, when a plan is made, into their literal text and
 * their holes, so a run fills them by concatenation: no regular expression
 * runs over a template and no URL template is parsed on the request path.
 * Each filler gives what its reference gives (fillTemplate, fillUrlTemplate,
 * fillPath in engine/core/arguments/), problems included, in the same order; the
 * differential test (spec/runtime/plan/) holds them to it.
 */

const PLACEHOLDER = /\{\{\s*([^{}\s]+)\s*\}\}/g;
const METADATA = 'metadata.';

interface Hole {
  /** The variable's name: an API or auth argument's key, or metadata.<field>. */
  readonly name: string;
  /** The placeholder as written, what stays when it cannot be filled. */
  readonly whole: string;
  /** The problem's field: connection.<name>, or metadata.<field> as it is. */
  readonly field: string;
  /** Which URL part it is in (URL templates only). */
  readonly part: UrlPart | null;
  /** Where the placeholder starts in the template (fillTemplate's encoders are given it). */
  readonly offset: number;
}

/** A {{placeholder}} template: literals[i] comes before holes[i]; one more literal ends it. */
export interface SplitTemplate {
  readonly literals: readonly string[];
  readonly holes: readonly Hole[];
}

function split(template: string, partAt: ((offset: number) => UrlPart) | null): SplitTemplate {
  const literals: string[] = [];
  const holes: Hole[] = [];
  let last = 0;
  for (const match of template.matchAll(PLACEHOLDER)) {
    const name = match[1]!;
    literals.push(template.slice(last, match.index));
    holes.push({ name, whole: match[0], field: name.startsWith(METADATA) ? name : `connection.${name}`, part: partAt ? partAt(match.index) : null, offset: match.index });
    last = match.index + match[0].length;
  }
  literals.push(template.slice(last));
  return { literals, holes };
}

/** A header value's template (API headers, auth values). */
export function splitHeaderTemplate(template: string): SplitTemplate {
  return split(template, null);
}

/** What fillTemplate gives for a split template. */
export function fillSplit(
  template: SplitTemplate,
  variables: Readonly<Record<string, string>>,
  where: string,
  problems: FieldProblem[],
  encode: (text: string, hole: Hole) => string | null | { refused: string },
): string {
  const { literals, holes } = template;
  let out = literals[0]!;
  for (let i = 0; i < holes.length; i++) {
    const hole = holes[i]!;
    const value = Object.hasOwn(variables, hole.name) ? variables[hole.name] : undefined;
    if (value === undefined) {
      const owner = hole.name.startsWith(METADATA) ? "the end user's metadata does not have" : 'the connection does not set';
      addOnce(problems, problem(hole.field, 'hostVariable', `${where} needs {{${hole.name}}}, which ${owner}`));
      out += hole.whole;
    } else {
      const encoded = encode(value, hole);
      if (encoded === null || typeof encoded === 'object') {
        const why = encoded === null ? 'its value contains a line break or control character' : encoded.refused;
        addOnce(problems, problem(hole.field, 'hostVariable', `${where} cannot use {{${hole.name}}}: ${why}`));
        out += hole.whole;
      } else out += encoded;
    }
    out += literals[i + 1]!;
  }
  return out;
}

/** A URL template (a base URL) split, each hole knowing the URL part it is in. */
export interface SplitUrlTemplate {
  readonly template: string;
  /** A leading {{name}} that is not a declared origin variable: the template is refused as it is. */
  readonly refusedOrigin: string | null;
  readonly split: SplitTemplate;
  /** The filled text when the template has no holes. */
  readonly constant: string | null;
  /** The origin of every URL made from it, when it has no holes (and is a URL). */
  readonly origin: string | null;
}

export function splitUrlTemplate(template: string, originVariables: readonly string[]): SplitUrlTemplate {
  const parts = urlTemplateParts(template);
  const refusedOrigin = parts.leading !== null && !originVariables.includes(parts.leading) ? parts.leading : null;
  const splitTemplate = split(template, parts.partAt);
  const constant = splitTemplate.holes.length === 0 ? template : null;
  // A path joined to it is encoded segment by segment, so it cannot move the origin.
  const origin = constant !== null && URL.canParse(constant) ? new URL(constant).origin : null;
  return { template, refusedOrigin, split: splitTemplate, constant, origin: origin === 'null' ? null : origin };
}

/** What fillUrlTemplate gives for a split URL template. */
export function fillSplitUrl(template: SplitUrlTemplate, variables: Readonly<Record<string, string>>, where: string, problems: FieldProblem[]): string {
  if (template.refusedOrigin !== null) {
    const name = template.refusedOrigin;
    problems.push(problem(name.startsWith(METADATA) ? name : `connection.${name}`, 'hostVariable', `${where} cannot use {{${name}}} as its origin: it is not declared in originVariables`));
    return template.template;
  }
  if (template.constant !== null) return template.constant;
  return fillSplit(template.split, variables, where, problems, (value, hole) => encodeFor(hole.part!, value));
}

const PATH_PARAM = /:([A-Za-z_][A-Za-z0-9_]*)/g;

interface PathHole {
  readonly name: string;
  readonly whole: string;
  /** The argument key a problem names (the Param argument sent as :name, else the name). */
  readonly key: string;
  readonly allowSlashes: boolean;
  /** The path's last segment, after a slash: an optional allowSlashes parameter left out ends the path before it. */
  readonly mayEnd: boolean;
}

/** An action path split at its :params. */
export interface SplitPath {
  readonly literals: readonly string[];
  readonly holes: readonly PathHole[];
}

export function splitPath(path: string, param: (name: string) => { key: string; allowSlashes: boolean } | undefined): SplitPath {
  const literals: string[] = [];
  const holes: PathHole[] = [];
  let last = 0;
  for (const match of path.matchAll(PATH_PARAM)) {
    const name = match[1]!;
    const found = param(name);
    literals.push(path.slice(last, match.index));
    holes.push({
      name,
      whole: match[0],
      key: found?.key ?? name,
      allowSlashes: found?.allowSlashes === true,
      mayEnd: match.index + match[0].length === path.length && path[match.index - 1] === '/',
    });
    last = match.index + match[0].length;
  }
  literals.push(path.slice(last));
  return { literals, holes };
}

/** What fillPath gives for a split path. */
export function fillSplitPath(path: SplitPath, params: ReadonlyMap<string, string>, problems: FieldProblem[]): string {
  const { literals, holes } = path;
  let out = literals[0]!;
  for (let i = 0; i < holes.length; i++) {
    const hole = holes[i]!;
    const value = params.get(hole.name);
    if (value === undefined && hole.allowSlashes && hole.mayEnd) out += LEFT_OUT;
    else if (value !== undefined) {
      const segments = hole.allowSlashes ? value.split('/') : [value];
      if (segments.some((s) => s === '.' || s === '..')) {
        problems.push(problem(hole.key, 'pathSegment', 'has a . or .. segment, which would change the path it is sent in'));
      } else if (segments.length > 1 && segments.some((s) => s === '')) {
        problems.push(problem(hole.key, 'pathSegment', 'has an empty segment (a leading, trailing or doubled /), which would change the path it is sent in'));
      }
      out += segments.length === 1 ? encodeURIComponent(value) : segments.map(encodeURIComponent).join('/');
    } else {
      // An argument already reported (missing, or a bad value) is not reported again for its segment.
      const key = hole.key;
      const reported = problems.some((p) => p.field === key || p.field.startsWith(`${key}[`) || p.field.startsWith(`${key}.`));
      if (!reported) problems.push(problem(key, 'required', `is a path parameter (:${hole.name}), so it needs a value`));
      out += hole.whole;
    }
    out += literals[i + 1]!;
  }
  return out.endsWith(`/${LEFT_OUT}`) ? out.slice(0, -LEFT_OUT.length - 1) : out;
}
