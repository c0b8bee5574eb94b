import type { AppFiles } from '../definition-tree.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';
import { duplicateNames } from './duplicates.ts';

/**
 * Across apps: ids and slugs are unique. It reads only each app's app.yaml
 * (in app folder order), so a reload runs it over every app cheaply even
 * when it re-checks one app only.
 */
export function checkAppNames(appFiles: FileAnalysis<'app'>[]): DefinitionProblem[] {
  return [...duplicateNames(appFiles, 'id', 'APP_ID_DUPLICATE', 'app'), ...duplicateNames(appFiles, 'slug', 'APP_SLUG_DUPLICATE', 'app')];
}

/** Within one app: `published` names a version folder that exists. */
export function checkPublished(app: AppFiles): DefinitionProblem[] {
  const published = app.app?.definition?.published;
  if (published === undefined || app.versions.has(published)) return [];
  const numbered = [...app.versions.keys()].filter((v) => v !== 'draft').sort();
  return [
    problemAt(
      app.app!.parsed!.locate(['published']),
      'PUBLISHED_VERSION_MISSING',
      `published version ${published} has no folder ${app.folder}/versions/${published}/ (numbered versions: ${numbered.join(', ') || 'none'})`,
    ),
  ];
}
