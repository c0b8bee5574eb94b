import { COLLECTION_NAMES, type CollectionName, type Store } from './port.ts';

export type CopyCounts = Record<CollectionName, number>;

/**
 * Copies every record of every collection from one store to another,
 * through the port, as they are (ids, sealed credentials, key hashes), in
 * one transaction of the target: it has all of them or none. The target
 * must hold none of these records yet (a record already there is a
 * DuplicateKeyError, and nothing is written). Pages of `pageSize` are read
 * in id order, so memory holds one page of the source at a time (the NeDB
 * store holds its files in memory anyway). Answers how many of each.
 */
export async function copyStore(from: Store, to: Store, options: { pageSize?: number; onCollection?: (name: CollectionName, count: number) => void } = {}): Promise<CopyCounts> {
  const pageSize = options.pageSize ?? 1_000;
  const counts = {} as CopyCounts;
  await to.transaction(async () => {
    for (const name of COLLECTION_NAMES) {
      let copied = 0;
      for (let skip = 0; ; skip += pageSize) {
        const page = await from[name].find({}, { sort: { id: 1 }, skip, limit: pageSize });
        for (const record of page) await (to[name] as Store[CollectionName]).insert(record as never);
        copied += page.length;
        if (page.length < pageSize) break;
      }
      counts[name] = copied;
      options.onCollection?.(name, copied);
    }
  });
  return counts;
}
