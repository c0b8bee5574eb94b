import type { AppFiles } from '../definition-tree.ts';
import type { FileAnalysis } from '../file-analysis.ts';
import { problemAt, type DefinitionProblem } from '../problems.ts';
import { duplicateNames } from './duplicates.ts';

/** Across apps: ids and slugs are unique, and `published` names a version folder that exists. */
export function checkApps(apps: AppFiles[]): DefinitionProblem[] {
  const appFiles = apps.map((a) => a.app).filter((a): a is FileAnalysis<'app'> => a !== null);
  const problems = [
    ...duplicateNames(appFiles, 'id', 'APP_ID_DUPLICATE', 'app'),
    ...duplicateNames(appFiles, 'slug', 'APP_SLUG_DUPLICATE', 'app'),
  ];
  for (const app of apps) {
    const published = app.app?.definition?.published;
    if (published === undefined || app.versions.has(published)) continue;
    const numbered = [...app.versions.keys()].filter((v) => v !== 'draft').sort();
    problems.push(
      problemAt(
        app.app!.parsed!.locate(['published']),
        'PUBLISHED_VERSION_MISSING',
        `published version ${published} has no folder ${app.folder}/versions/${published}/ (numbered versions: ${numbered.join(', ') || 'none'})`,
      ),
    );
  }
  return problems;
}
