import type { FileAnalysis } from './file-analysis.ts';
import { versionLabel, type VersionName } from './layout.ts';
import type { DefinitionProblem } from './problems.ts';

/** The files of one version folder, by kind. */
export interface VersionFiles {
  name: VersionName;
  /** versions/<name>, relative to the app folder. */
  folder: string;
  api: FileAnalysis<'api'> | null;
  auths: FileAnalysis<'auth'>[];
  actions: FileAnalysis<'action'>[];
}

/** The files of one app folder. */
export interface AppFiles {
  folder: string;
  app: FileAnalysis<'app'> | null;
  versions: Map<VersionName, VersionFiles>;
}

/**
 * Groups analysed files by app folder and version, and reports the files the
 * layout needs but does not find (app.yaml, api.yaml).
 */
export function groupByApp(analyses: FileAnalysis[]): { apps: AppFiles[]; problems: DefinitionProblem[] } {
  const apps = new Map<string, AppFiles>();
  for (const analysis of analyses) {
    const place = analysis.place;
    if (place.kind === 'unexpected') continue;
    let app = apps.get(place.appFolder);
    if (!app) {
      app = { folder: place.appFolder, app: null, versions: new Map() };
      apps.set(place.appFolder, app);
    }
    if (place.kind === 'app') {
      app.app = analysis as FileAnalysis<'app'>;
      continue;
    }
    let version = app.versions.get(place.version);
    if (!version) {
      version = { name: place.version, folder: `versions/${versionLabel(place.version)}`, api: null, auths: [], actions: [] };
      app.versions.set(place.version, version);
    }
    if (place.kind === 'api') version.api = analysis as FileAnalysis<'api'>;
    else if (place.kind === 'auth') version.auths.push(analysis as FileAnalysis<'auth'>);
    else version.actions.push(analysis as FileAnalysis<'action'>);
  }
  const problems: DefinitionProblem[] = [];
  for (const app of apps.values()) {
    if (!app.app) {
      problems.push({ file: `${app.folder}/app.yaml`, line: 1, column: 1, code: 'APP_FILE_MISSING', message: `app folder "${app.folder}" has no app.yaml` });
    }
    for (const version of app.versions.values()) {
      if (!version.api) {
        problems.push({
          file: `${app.folder}/${version.folder}/api.yaml`,
          line: 1,
          column: 1,
          code: 'API_FILE_MISSING',
          message: `version ${versionLabel(version.name)} of app folder "${app.folder}" has no api.yaml`,
        });
      }
    }
  }
  return { apps: [...apps.values()], problems };
}
