import { expect } from 'chai';
import { appCallKey, createAppCallLimiter, type Release } from '../../../engine/core/concurrency/index.ts';
import { GatewayError } from '../../../engine/platform/errors/index.ts';
import { CallStop } from '../../../engine/platform/outbound/index.ts';

const key = (limit: number | undefined, connection = 'con_1') => ({ app: 'shop', connection, limit });
const later = () => Date.now() + 60_000;
/** What a pending acquire has come to so far: granted, refused, or still waiting. */
function watch(promise: Promise<Release>): { state: () => 'waiting' | 'granted' | 'refused'; release: () => void; error: () => unknown } {
  let state: 'waiting' | 'granted' | 'refused' = 'waiting';
  let release: Release | undefined;
  let error: unknown;
  promise.then(
    (r) => ((state = 'granted'), (release = r)),
    (e: unknown) => ((state = 'refused'), (error = e)),
  );
  return { state: () => state, release: () => release!(), error: () => error };
}
const settle = () => new Promise((resolve) => setImmediate(resolve));

describe('the calls at once of an app connection (api.yaml concurrency)', () => {
  it('grants up to the limit, queues the rest in order, and hands each released slot to the first waiting', async () => {
    const calls = createAppCallLimiter({ queueLength: 10 });
    const first = await calls.acquire(key(2), later());
    const second = await calls.acquire(key(2), later());
    const third = watch(calls.acquire(key(2), later()));
    const fourth = watch(calls.acquire(key(2), later()));
    await settle();
    expect([third.state(), fourth.state()]).to.deep.equal(['waiting', 'waiting']);
    first();
    first(); // a second release gives nothing back twice
    await settle();
    expect([third.state(), fourth.state()]).to.deep.equal(['granted', 'waiting']);
    second();
    await settle();
    expect(fourth.state()).to.equal('granted');
  });

  it('counts each connection apart, and does not bound an app without concurrency', async () => {
    const calls = createAppCallLimiter({ queueLength: 0 });
    await calls.acquire(key(1, 'con_1'), later());
    await calls.acquire(key(1, 'con_2'), later());
    for (let i = 0; i < 100; i++) await calls.acquire(key(undefined), later());
  });

  it('refuses a call at once when the queue is full: 503 UPSTREAM_BUSY with a Retry-After and the setting to raise', async () => {
    const calls = createAppCallLimiter({ queueLength: 1 });
    await calls.acquire(key(1), later());
    const queued = watch(calls.acquire(key(1), later()));
    const error = await calls.acquire(key(1), later()).catch((e: unknown) => e);
    expect(error).to.be.instanceOf(GatewayError);
    expect(error).to.include({ code: 'UPSTREAM_BUSY', status: 503 });
    expect((error as GatewayError).message).to.match(/^shop takes 1 call at once per connection \(api\.yaml concurrency\) and connection con_1 has 1 more waiting \(OUTBOUND_QUEUE_LENGTH\); try again in \d+ s$/);
    expect((error as GatewayError).details).to.include({ app: 'shop', limit: 1, queued: 1 });
    expect((error as GatewayError).details).to.have.property('retryAfterSeconds').that.is.at.least(1);
    await settle();
    expect(queued.state()).to.equal('waiting');
  });

  it('gives up on a waiting call at its deadline, and lets the next one have the slot', async () => {
    const calls = createAppCallLimiter({ queueLength: 5 });
    const held = await calls.acquire(key(1), later());
    const hurried = watch(calls.acquire(key(1), Date.now() + 50));
    const patient = watch(calls.acquire(key(1), later()));
    await new Promise((resolve) => setTimeout(resolve, 120));
    expect(hurried.state()).to.equal('refused');
    expect(hurried.error()).to.include({ code: 'UPSTREAM_BUSY' });
    expect((hurried.error() as Error).message).to.match(/had every one in use until the run's deadline/);
    held();
    await settle();
    expect(patient.state()).to.equal('granted');
  });

  it('drops a waiting call whose caller went away, with the reason it was stopped for', async () => {
    const calls = createAppCallLimiter({ queueLength: 5 });
    const held = await calls.acquire(key(1), later());
    const stop = new CallStop();
    const gone = watch(calls.acquire(key(1), later(), stop));
    const next = watch(calls.acquire(key(1), later()));
    stop.abort(new Error('the caller went away'));
    await settle();
    expect(gone.state()).to.equal('refused');
    expect((gone.error() as Error).message).to.equal('the caller went away');
    held();
    await settle();
    expect(next.state()).to.equal('granted');
  });

  it('takes the key from the version run: the app, its api.yaml concurrency and the connection', () => {
    expect(appCallKey({ app: { slug: 'shop' }, api: { concurrency: 4 } }, 'con_9')).to.deep.equal({ app: 'shop', connection: 'con_9', limit: 4 });
  });
});
