/**
 * Where each kind of definition lives, so a file's path says what it is:
 *
 *   <app>/app.yaml
 *   <app>/versions/<n | draft>/api.yaml
 *   <app>/versions/<n | draft>/auths/<auth>.yaml
 *   <app>/versions/<n | draft>/actions/<action>.yaml
 *
 * Beside an action, `<action>.test.yaml` holds its offline test cases: data
 * for `npm run test:definitions`, not a definition, so the loader skips it.
 */
export type DefinitionKind = 'app' | 'api' | 'auth' | 'action';

/** `draft`, or a positive whole number without leading zeros. */
export type VersionName = number | 'draft';

export type FilePlace =
  | { kind: 'app'; appFolder: string }
  | { kind: 'api' | 'auth' | 'action'; appFolder: string; version: VersionName }
  | { kind: 'unexpected'; reason: string; code: 'FILE_UNEXPECTED' | 'VERSION_NAME_INVALID' };

const VERSION = /^[1-9][0-9]{0,8}$/;
const ACTION_TEST_FILE = /^[^/]+\/versions\/[^/]+\/actions\/[^/]+\.test\.ya?ml$/;

/** `acme` for acme/versions/1/api.yaml (every file placed in an app is under its folder), the name for a file at the top. */
export function topName(file: string): string {
  const slash = file.indexOf('/');
  return slash === -1 ? file : file.slice(0, slash);
}

/** `<app>/versions/<v>/actions/<action>.test.yaml`: an action's offline test cases. */
export function isActionTestFile(file: string): boolean {
  return ACTION_TEST_FILE.test(file);
}

export function placeOf(file: string): FilePlace {
  const parts = file.split('/');
  const name = parts.at(-1)!.replace(/\.yml$/, '.yaml');
  if (parts.length === 2 && name === 'app.yaml') return { kind: 'app', appFolder: parts[0]! };
  if (parts.length >= 4 && parts[1] === 'versions') {
    const version = versionName(parts[2]!);
    if (version === null) {
      return { kind: 'unexpected', code: 'VERSION_NAME_INVALID', reason: `version folder "${parts[2]}" must be a positive number (1, 2, ...) or draft` };
    }
    if (parts.length === 4 && name === 'api.yaml') return { kind: 'api', appFolder: parts[0]!, version };
    if (parts.length === 5 && parts[3] === 'auths') return { kind: 'auth', appFolder: parts[0]!, version };
    if (parts.length === 5 && parts[3] === 'actions') return { kind: 'action', appFolder: parts[0]!, version };
  }
  return {
    kind: 'unexpected',
    code: 'FILE_UNEXPECTED',
    reason: 'definition files go in <app>/app.yaml, <app>/versions/<n|draft>/api.yaml, .../auths/<auth>.yaml or .../actions/<action>.yaml',
  };
}

export function versionName(folder: string): VersionName | null {
  if (folder === 'draft') return 'draft';
  return VERSION.test(folder) ? Number(folder) : null;
}

/** How a version is written in messages and paths. */
export function versionLabel(version: VersionName): string {
  return version === 'draft' ? 'draft' : String(version);
}
