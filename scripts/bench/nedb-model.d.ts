/** NeDB's own line format (lib/model.js, CommonJS, no types): the store benchmark writes its seed files with it. */
declare module '@seald-io/nedb/lib/model.js' {
  const model: { serialize(doc: unknown): string };
  export default model;
}
