import type { ArgumentEntry } from '../definitions/snapshot.ts';

/** An argument with its children (Object and Array arguments have them), in definition order. */
export interface ArgumentNode {
  readonly arg: ArgumentEntry;
  readonly children: readonly ArgumentNode[];
  /** The node's parent, for children; their external keys are relative to it. */
  readonly parent: ArgumentNode | undefined;
}

const trees = new WeakMap<readonly ArgumentEntry[], readonly ArgumentNode[]>();

/**
 * The top-level arguments of a list, each with its children. Definitions have
 * been checked (parents exist, no cycles), and a snapshot's lists never
 * change, so the tree is built once per list.
 *
 *   - key: address            dataType: Object   -> address
 *   - key: country            parent: address    ->   country
 */
export function argumentTree(args: readonly ArgumentEntry[]): readonly ArgumentNode[] {
  let tree = trees.get(args);
  if (!tree) {
    tree = build(args, undefined);
    trees.set(args, tree);
  }
  return tree;
}

/** Each argument's children found by one grouping of the list (a filter of the whole list per argument took n^2: 20,000 arguments, seconds). */
function build(args: readonly ArgumentEntry[], parent: ArgumentNode | undefined, byParent = groupByParent(args)): ArgumentNode[] {
  return (byParent.get(parent?.arg.key) ?? []).map((arg) => {
    const node: { arg: ArgumentEntry; children: ArgumentNode[]; parent: ArgumentNode | undefined } = { arg, children: [], parent };
    node.children = build(args, node, byParent);
    return node;
  });
}

function groupByParent(args: readonly ArgumentEntry[]): Map<string | undefined, ArgumentEntry[]> {
  const byParent = new Map<string | undefined, ArgumentEntry[]>();
  for (const arg of args) {
    const siblings = byParent.get(arg.parent);
    if (siblings) siblings.push(arg);
    else byParent.set(arg.parent, [arg]);
  }
  return byParent;
}

/**
 * Where a child goes inside its parent's value, from its external key. The
 * external key of an Object's child starts with the parent's name and a dot
 * (customer.address_line); an Array child may also write parent[].name;
 * what follows is the path inside the parent (dots nest further).
 */
export function pathInParent(node: ArgumentNode): string[] {
  const external = node.arg.externalKey;
  if (external === undefined) return [node.arg.key];
  const parentName = node.parent ? (node.parent.arg.externalKey ?? node.parent.arg.key) : '';
  for (const prefix of [`${parentName}.`, `${parentName}[].`]) {
    if (node.parent && external.startsWith(prefix) && external.length > prefix.length) return external.slice(prefix.length).split('.');
  }
  return external.split('.');
}

/** The name a top-level argument is sent under: its external key, else its key. */
export function sentName(node: ArgumentNode): string {
  return node.arg.externalKey ?? node.arg.key;
}
