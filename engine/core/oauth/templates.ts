import { fillUrlTemplate } from '../arguments/url-template.ts';
import { validationError, type FieldProblem } from '../../platform/errors/index.ts';

/**
 * Fills the `{{name}}` placeholders of an auth's URL (authorize, token,
 * refresh) from a connection's host variables, each encoded for its part of
 * the URL (fillUrlTemplate: a host label, a path segment, a query value); a
 * placeholder with no value, or one that cannot go there, is a 400 naming
 * the variable. OAuth URLs take no whole-origin variables.
 */
export function fillTemplate(template: string, variables: Record<string, unknown>, where: string): string {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) if (value !== undefined && value !== null) text[name] = String(value);
  const problems: FieldProblem[] = [];
  const filled = fillUrlTemplate(template, text, where, problems);
  if (problems.length) throw validationError(problems);
  return filled;
}
