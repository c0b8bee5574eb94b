import { readFileSync } from 'node:fs';
import path from 'node:path';
import { expect } from 'chai';
import { parse } from 'yaml';
import { last, readDockerfile, stageEnv } from '../../scripts/container/dockerfile.ts';
import { ROOT } from '../helpers/process.ts';
import { START_ARGS } from '../helpers/start-command.ts';

/**
 * What can be checked of the container files without a container engine.
 * Their commands run in `npm run rehearse:container` (.ci/run).
 */
describe('the container files (Dockerfile, compose.yaml)', () => {
  const { stages } = readDockerfile();
  const runtime = stages.at(-1)!;
  const build = stages[0]!;
  const runs = (stage: typeof build) => stage.instructions.filter((i) => i.keyword === 'RUN').map((i) => i.rest);

  it('builds in one stage (npm ci with dev dependencies, npm run build) and runs from another', () => {
    expect(stages.map((s) => s.name)).to.deep.equal(['build', 'runtime']);
    expect(runs(build)).to.deep.equal(['npm ci --no-audit --no-fund', 'npm run build']);
    expect(build.base).to.equal(runtime.base);
    expect(runtime.base).to.match(/^node:\$\{NODE_VERSION\}-[a-z]+-slim$/);
  });

  it('installs production dependencies only in the runtime stage, and takes nothing but dist/ from the build stage', () => {
    const installs = runs(runtime).filter((r) => r.startsWith('npm '));
    expect(installs).to.deep.equal(['npm ci --omit=dev --no-audit --no-fund']);
    const fromBuild = runtime.instructions.filter((i) => i.keyword === 'COPY' && i.flags.from);
    expect(fromBuild.map((i) => i.rest)).to.deep.equal(['/app/dist ./dist']);
    // No source, tests or node_modules of the context: only what the gateway reads at run time.
    const fromContext = runtime.instructions.filter((i) => i.keyword === 'COPY' && !i.flags.from).map((i) => i.rest.split(/\s+/).slice(0, -1)).flat();
    expect(fromContext.sort()).to.deep.equal(['definitions', 'package-lock.json', 'package.json', 'schemas', 'web']);
  });

  it('copies the browser files the gateway serves (web/: the Connect page, the browser SDK) into the runtime stage, where PACKAGE_ROOT finds them', () => {
    const copies = runtime.instructions.filter((i) => i.keyword === 'COPY' && !i.flags.from).map((i) => i.rest);
    expect(copies).to.include('web ./web');
    // WORKDIR /app holds package.json: PACKAGE_ROOT is /app there, and the page is read from /app/web/connect.
    expect(last(runtime, 'WORKDIR')!.rest).to.equal('/app');
  });

  it("runs as a non-root user, with npm start's command, a HEALTHCHECK without curl, and DATA_DIR and DEFINITIONS_DIR as volumes", () => {
    const user = last(runtime, 'USER')!.rest;
    expect(user).to.not.match(/^(root|0)(:|$)/);
    expect(last(runtime, 'CMD')!.exec).to.deep.equal(['node', ...START_ARGS]);
    const health = last(runtime, 'HEALTHCHECK')!;
    expect(health.exec![0]).to.equal('node');
    expect(health.exec!.join(' ')).to.include('/health').and.not.match(/curl|wget/);
    const env = stageEnv(runtime);
    expect(JSON.parse(last(runtime, 'VOLUME')!.rest)).to.have.members([env.DATA_DIR, env.DEFINITIONS_DIR]);
    expect(last(runtime, 'EXPOSE')!.rest).to.equal(env.PORT);
    expect(env.HOST).to.equal('0.0.0.0');
  });

  it('leaves installed and built files and local state out of the build context (.dockerignore)', () => {
    const ignored = readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n');
    expect(ignored).to.include.members(['node_modules', 'dist', 'data', '.git', '.env']);
  });

  it('leaves the secret files compose.yaml reads out of the build context: `COPY . .` would bake them into the image', () => {
    const ignored = new Set(readFileSync(path.join(ROOT, '.dockerignore'), 'utf8').split('\n').map((l) => l.trim()).filter((l) => l && !l.startsWith('#')));
    const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as { secrets: Record<string, { file: string }> };
    const files = Object.values(compose.secrets).map((s) => path.posix.normalize(s.file));
    expect(files.length).to.be.greaterThan(0);
    for (const file of files) {
      // A top-level name or the path itself, as .dockerignore matches them (scripts/container/rehearse.ts reads only those).
      const covered = file.split('/').some((_, i, parts) => ignored.has(parts.slice(0, i + 1).join('/')));
      expect(covered, `${file} is in the build context`).to.equal(true);
    }
  });

  it('runs two gateway replicas sharing MongoDB, one encryption key as a secret file, and one definitions volume', () => {
    const compose = parse(readFileSync(path.join(ROOT, 'compose.yaml'), 'utf8')) as any;
    const gateway = compose.services.gateway;
    expect(gateway.deploy.replicas).to.equal(2);
    expect(gateway.build).to.equal('.');
    expect(gateway.environment.MONGODB_URI).to.match(/^mongodb:\/\/mongo:27017\//);
    expect(gateway.environment.ENCRYPTION_KEY_FILE).to.equal('/run/secrets/encryption_key');
    expect(gateway.environment).to.not.have.property('ENCRYPTION_KEY');
    expect(gateway.secrets).to.include('encryption_key');
    expect(compose.secrets.encryption_key.file).to.be.a('string');
    expect(gateway.volumes).to.include(`definitions:${stageEnv(runtime).DEFINITIONS_DIR}`);
    expect(compose.volumes).to.have.property('definitions');
    expect(gateway.depends_on.mongo.condition).to.equal('service_healthy');
    expect(compose.services.mongo.healthcheck.test).to.be.an('array');
  });
});
