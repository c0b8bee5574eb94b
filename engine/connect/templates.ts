import { validationError } from '../errors/index.ts';

/**
 * Fills `{{name}}` placeholders of a definition's URL from host variables.
 * A placeholder with no value is a 400 naming the variable, so the caller
 * knows which metadata to send.
 */
export function fillTemplate(template: string, variables: Record<string, unknown>, field: string, encode = true): string {
  const missing: string[] = [];
  const filled = template.replace(/\{\{\s*([A-Za-z_][A-Za-z0-9_]*)\s*\}\}/g, (_all, name: string) => {
    const value = variables[name];
    if (value === undefined || value === null || value === '') {
      missing.push(name);
      return '';
    }
    return encode ? encodeURIComponent(String(value)) : String(value);
  });
  if (missing.length) {
    throw validationError(missing.map((name) => ({ field: `${field}.${name}`, rule: 'hostVariable', message: `is needed by the app definition ({{${name}}}) but was not given` })));
  }
  return filled;
}
