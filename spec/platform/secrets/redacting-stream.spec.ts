import { expect } from 'chai';
import { Readable } from 'node:stream';
import { buffer } from 'node:stream/consumers';
import { MIN_REDACTED_LENGTH } from '../../../engine/platform/secrets/redact.ts';
import { redactingStream, redactionForms, redactText, SecretRedactor } from '../../../engine/platform/secrets/redacting-stream.ts';

/** What the redactor lets out for `body` cut into `chunks` (byte offsets). */
function throughCuts(forms: string[], body: Buffer, cuts: number[]): string {
  const redactor = new SecretRedactor(forms);
  const out: Buffer[] = [];
  let from = 0;
  for (const cut of [...cuts, body.length]) {
    out.push(...redactor.write(body.subarray(from, cut)));
    from = cut;
  }
  out.push(...redactor.end());
  return Buffer.concat(out).toString('utf8');
}

/** A deterministic pseudo-random sequence (the same cases on every run). */
function random(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) & 0x7fffffff;
    return state / 0x7fffffff;
  };
}

describe('redacting secrets from a body that streams (SecretRedactor, redactingStream)', () => {
  const secret = 'sk_live_0123456789abcdef';
  const forms = redactionForms(secret);

  it('replaces the secret wherever the chunks are cut: at every byte offset, inside the secret too', () => {
    const body = Buffer.from(`{"error":"bad key ${secret}","echo":"${secret}"}`);
    const expected = `{"error":"bad key [redacted]","echo":"[redacted]"}`;
    for (let cut = 0; cut <= body.length; cut++) expect(throughCuts(forms, body, [cut]), `cut at ${cut}`).to.equal(expected);
    for (let a = 1; a < body.length; a += 3) for (let b = a; b < body.length; b += 5) expect(throughCuts(forms, body, [a, b])).to.equal(expected);
  });

  it('gives the same answer for one-byte chunks as for the whole body', () => {
    const body = Buffer.from(`a${secret}${secret}b ${secret.slice(0, 10)} ${secret}`);
    const cuts = Array.from({ length: body.length - 1 }, (_, i) => i + 1);
    expect(throughCuts(forms, body, cuts)).to.equal('a[redacted][redacted]b sk_live_01 [redacted]');
    expect(throughCuts(forms, body, cuts)).to.equal(redactText(body.toString(), forms));
  });

  it('finds the escaped forms an app writes a secret in: JSON (quotes, backslashes, \\/), Go and Python \\u escapes, percent-encoding, + for spaces', () => {
    const tricky = 'p@ss/word "q" \\ <&> é';
    const all = redactionForms(tricky);
    const written = [
      JSON.stringify({ echo: tricky }),
      JSON.stringify({ echo: tricky }).replace(/\//g, '\\/'),
      '{"echo":"p@ss/word \\"q\\" \\\\ \\u003c\\u0026\\u003e é"}',
      '{"echo": "p@ss/word \\"q\\" \\\\ <&> \\u00e9"}',
      `?echo=${encodeURIComponent(tricky)}`,
      `echo=${new URLSearchParams({ v: tricky }).toString().slice(2)}`,
    ];
    for (const text of written) {
      const body = Buffer.from(text);
      for (let cut = 0; cut <= body.length; cut++) {
        const out = throughCuts(all, body, [cut]);
        expect(out, `${text} cut at ${cut}`).to.include('[redacted]');
        expect(out).not.to.include('word');
      }
    }
  });

  it("finds the forms of Gson (= as \\u003d), .NET (+ and beyond ASCII, upper-case hex) and PHP's JSON_HEX_* flags (upper-case hex)", () => {
    const written = (secret: string, text: string) => {
      const body = Buffer.from(`{"error":"invalid key ${text}"}`);
      for (let cut = 0; cut <= body.length; cut++) expect(throughCuts(redactionForms(secret), body, [cut]), `${text} cut at ${cut}`).to.equal('{"error":"invalid key [redacted]"}');
    };
    written('dGVzdF9rZXlfMTIzNDU2Nzg=', 'dGVzdF9rZXlfMTIzNDU2Nzg\\u003d');
    written('dGVzdF9rZXlfMTIzNDU2Nzg=', 'dGVzdF9rZXlfMTIzNDU2Nzg\\u003D');
    written('key+with<tag>é', 'key\\u002Bwith\\u003Ctag\\u003E\\u00E9');
    written('key"quoted"<x>', 'key\\u0022quoted\\u0022\\u003Cx\\u003E');
  });

  it('finds a secret written with escapes of several kinds in one string, as encoders write them (PHP\'s \\/ with \\u00e9, JSON_HEX_* with \\/, .NET), at every cut', () => {
    const cases: [string, string][] = [
      ['a/\u00e9-SECRET-1', 'a\\/\\u00e9-SECRET-1'],
      ['a&b/c-SECRET-7', 'a\\u0026b\\/c-SECRET-7'],
      ['a"b/c-SECRET-8', 'a\\u0022b\\/c-SECRET-8'],
      ['a\u2039\u00e9-SECRET-11', 'a\\u2039\\u00E9-SECRET-11'],
      ['a<\u00e9-SECRET-12', 'a\\u003c\\u00e9-SECRET-12'],
      ['a<\u00e9-SECRET-13', 'a\\u003C\\u00E9-SECRET-13'],
      ['p<&>\u00e9"/ x-SECRET-99', 'p\\u003C\\u0026\\u003E\\u00E9\\u0022/ x-SECRET-99'],
    ];
    for (const [secret, written] of cases) {
      const body = Buffer.from(`{"error":"invalid password ${written}","after":"é"}`);
      for (let cut = 0; cut <= body.length; cut++) {
        expect(throughCuts(redactionForms(secret), body, [cut]), `${written} cut at ${cut}`).to.equal('{"error":"invalid password [redacted]","after":"é"}');
      }
      expect(redactText(body.toString(), redactionForms(secret)), written).to.equal('{"error":"invalid password [redacted]","after":"é"}');
    }
  });

  it('finds a secret holding backslashes as raw text has it and as JSON writes it, in time linear in the body however many it holds', function () {
    // Matching that backtracked over the ways to read a run of backslashes would take longer than the universe here.
    this.timeout(30_000);
    const secret = `${'\\'.repeat(40)}tail-SECRET`;
    const json = JSON.stringify({ error: `bad ${secret}` });
    expect(throughCuts(redactionForms(secret), Buffer.from(json), [7])).to.equal('{"error":"bad [redacted]"}');
    expect(redactText(`raw: ${secret}.`, redactionForms(secret))).to.equal('raw: [redacted].');
    // A body of backslashes that never completes it: each of its chunks ends in what could begin the secret.
    const body = Buffer.from('\\'.repeat(20_000));
    expect(throughCuts(redactionForms(secret), body, [5_000, 10_000, 15_000])).to.equal(body.toString());
    expect(redactText(body.toString(), redactionForms(secret))).to.equal(body.toString());
  });

  it('still finds a long secret that the ends of chunks almost begin at every byte (its check of each end is bounded), and lets the rest through', () => {
    const secret = `${'a'.repeat(60_000)}b`;
    const chunk = `${'a'.repeat(65_535)}c`;
    const body = Buffer.from(chunk.repeat(3) + secret + chunk);
    const cuts = [65_536, 131_072, 196_608, 200_000];
    expect(throughCuts(redactionForms(secret), body, cuts)).to.equal(`${chunk.repeat(3)}[redacted]${chunk}`);
  });

  it('merges overlapping secrets, also when the overlap spans two chunks (no tail of the longer one left)', () => {
    const overlapping = redactionForms('ABCDXYZW', 'ZW12345678');
    const body = Buffer.from('before ABCDXYZW12345678 after');
    for (let cut = 0; cut <= body.length; cut++) expect(throughCuts(overlapping, body, [cut]), `cut at ${cut}`).to.equal('before [redacted] after');
  });

  it('matches the one-shot redaction on random bodies, secrets and cuts', () => {
    const next = random(7);
    const secrets = ['tok_abcdef', 'abcdefgh12', 'refresh-XYZ-987', 'Zm9vOmJhcg=='];
    const all = redactionForms(...secrets);
    for (let round = 0; round < 300; round++) {
      let text = '';
      while (text.length < 400) text += next() < 0.2 ? secrets[Math.floor(next() * secrets.length)]! : String.fromCharCode(97 + Math.floor(next() * 8));
      const body = Buffer.from(text);
      const cuts = Array.from({ length: Math.floor(next() * 12) }, () => Math.floor(next() * body.length)).sort((a, b) => a - b);
      const out = throughCuts(all, body, cuts);
      for (const s of secrets) expect(out).not.to.include(s);
      expect(out).to.equal(throughCuts(all, body, []));
    }
  });

  it('holds back only about twice the longest form, whatever the body (a long run of a self-overlapping secret included)', () => {
    const forms = redactionForms('zzzz-not-there');
    const longest = Math.max(...forms.map((f) => f.length));
    const redactor = new SecretRedactor(forms);
    const chunk = Buffer.alloc(64 * 1024, 'a');
    let given = 0;
    let letOut = 0;
    for (let i = 0; i < 100; i++) {
      given += chunk.length;
      letOut += redactor.write(chunk).reduce((n, b) => n + b.length, 0);
      expect(given - letOut).to.be.at.most(2 * longest);
    }
    const run = new SecretRedactor(redactionForms('aaaaaaaa'));
    const out: Buffer[] = [];
    for (let i = 0; i < 100; i++) out.push(...run.write(chunk));
    out.push(...run.end());
    expect(Buffer.concat(out).toString()).to.match(/^(\[redacted\])+$/);
  });

  it('lets a chunk out whole unless its end could begin a secret: only those bytes wait for the next chunk (a stream of events is not held back)', () => {
    const redactor = new SecretRedactor(forms);
    const text = (pieces: Buffer[]) => Buffer.concat(pieces).toString();
    expect(text(redactor.write(Buffer.from('data: {"n":1}\n\n')))).to.equal('data: {"n":1}\n\n');
    expect(text(redactor.write(Buffer.from('data: sk_li')))).to.equal('data: ');
    expect(text(redactor.write(Buffer.from('ve_0123456789abcdef\n\n')))).to.equal('[redacted]\n\n');
    expect(text(redactor.write(Buffer.from('data: sk_lit')))).to.equal('data: sk_lit');
    expect(text(redactor.end())).to.equal('');
  });

  it('lets everything through unchanged when there is nothing to look for', async () => {
    const body = Buffer.from('nothing secret here');
    expect(new SecretRedactor([]).active).to.equal(false);
    expect((await buffer(Readable.from([body]).pipe(redactingStream([])))).toString()).to.equal('nothing secret here');
  });

  it('as a Transform: a secret split across the chunks of a stream is redacted', async () => {
    const pieces = ['{"token":"sk_live_01', '23456789ab', 'cdef"}'].map((p) => Buffer.from(p));
    const out = await buffer(Readable.from(pieces).pipe(redactingStream(forms)));
    expect(out.toString()).to.equal('{"token":"[redacted]"}');
  });

  it(`ignores values too short to look for (under MIN_REDACTED_LENGTH, ${MIN_REDACTED_LENGTH}, as for runs: a short secret would match everywhere)`, () => {
    expect(redactionForms('abc', 'user', 'a'.repeat(MIN_REDACTED_LENGTH - 1), '', null, 42)).to.deep.equal([]);
    expect(redactionForms('a'.repeat(MIN_REDACTED_LENGTH))).to.include('a'.repeat(MIN_REDACTED_LENGTH));
  });
});
