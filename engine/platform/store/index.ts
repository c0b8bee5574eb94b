export type { Collection, Filter, FindOptions, Store, Update } from './port.ts';
export { DuplicateKeyError } from './port.ts';
export type * from './records.ts';
export { openStore } from './open-store.ts';
