import { fillTemplate as fillHostTemplate } from '../arguments/index.ts';
import { validationError, type FieldProblem } from '../errors/index.ts';

/**
 * Fills the `{{name}}` placeholders of an auth's URL (authorize, token,
 * refresh) from a connection's host variables, with the arguments engine's
 * rules; a placeholder with no value is a 400 naming the variable.
 */
export function fillTemplate(template: string, variables: Record<string, unknown>, where: string): string {
  const text: Record<string, string> = {};
  for (const [name, value] of Object.entries(variables)) if (value !== undefined && value !== null) text[name] = String(value);
  const problems: FieldProblem[] = [];
  const filled = fillHostTemplate(template, text, where, problems, encodeURIComponent);
  if (problems.length) throw validationError(problems);
  return filled;
}
