import fs from 'node:fs';
import path from 'node:path';
import { SCHEMAS_DIR } from '../core/definitions/schema-validation.ts';
import type { DefinitionKind } from '../core/definitions/layout.ts';

/** A JSON Schema node, read only for the parts that say how a value is shaped. */
export interface SchemaNode {
  $id?: string;
  $ref?: string;
  properties?: Record<string, SchemaNode>;
  additionalProperties?: boolean | SchemaNode;
  items?: SchemaNode;
  oneOf?: SchemaNode[];
  discriminator?: { propertyName: string };
  const?: unknown;
}

/** A schema node with the file it came from, so relative `$ref`s resolve. */
export interface SchemaAt {
  node: SchemaNode;
  file: string;
}

const ROOT_OF: Record<DefinitionKind, string> = {
  app: 'app.schema.json',
  api: 'api.schema.json',
  auth: 'auth.schema.json',
  action: 'action.schema.json',
};

/**
 * The schemas as a map of shapes: which properties an object has, in the order
 * the schema declares them, and the shape of each child. The canonical key
 * order of a definition file is this order, so authors and reviewers always
 * find `id` before `name` and `dataType` before `location`.
 */
export class SchemaShapes {
  private readonly files = new Map<string, SchemaNode>();

  constructor(dir: string = SCHEMAS_DIR) {
    for (const name of fs.readdirSync(dir).filter((n) => n.endsWith('.schema.json'))) {
      const schema = JSON.parse(fs.readFileSync(path.join(dir, name), 'utf8')) as SchemaNode;
      this.files.set(schema.$id ?? name, schema);
    }
  }

  /** The schema of a whole file of `kind`. */
  root(kind: DefinitionKind): SchemaAt {
    const file = ROOT_OF[kind];
    return { node: this.files.get(file)!, file };
  }

  /**
   * Follows `$ref`s and picks the `oneOf` branch a discriminated object
   * (`type: ApiKey`, `type: Fixed`) belongs to. `tagValue` is the value of the
   * discriminator property in the object being shaped, if it has one.
   */
  resolve(at: SchemaAt | null, tagValue?: (property: string) => unknown): SchemaAt | null {
    let current = at;
    for (let depth = 0; current && depth < 20; depth++) {
      const { node, file } = current;
      if (node.$ref) {
        current = this.follow(node.$ref, file);
        continue;
      }
      if (node.oneOf && node.discriminator && tagValue) {
        const tag = tagValue(node.discriminator.propertyName);
        const branches = node.oneOf.map((b) => this.resolve({ node: b, file })).filter((b): b is SchemaAt => b !== null);
        return branches.find((b) => b.node.properties?.[node.discriminator!.propertyName]?.const === tag) ?? null;
      }
      return current;
    }
    return null;
  }

  /** The declared property names of an object schema, in order (empty when it declares none). */
  propertyOrder(at: SchemaAt | null): string[] {
    return Object.keys(at?.node.properties ?? {});
  }

  /** The schema of the value under `key`: a declared property, else the additionalProperties schema. */
  property(at: SchemaAt | null, key: string): SchemaAt | null {
    if (!at) return null;
    const declared = at.node.properties?.[key];
    if (declared) return { node: declared, file: at.file };
    const extra = at.node.additionalProperties;
    return typeof extra === 'object' ? { node: extra, file: at.file } : null;
  }

  /** The schema of each item of an array schema. */
  items(at: SchemaAt | null): SchemaAt | null {
    return at?.node.items ? { node: at.node.items, file: at.file } : null;
  }

  private follow(ref: string, from: string): SchemaAt | null {
    const [filePart, pointer = ''] = ref.split('#');
    const file = filePart || from;
    let node: unknown = this.files.get(file);
    for (const segment of pointer.split('/').filter(Boolean)) {
      node = (node as Record<string, unknown> | undefined)?.[segment.replace(/~1/g, '/').replace(/~0/g, '~')];
    }
    return node && typeof node === 'object' ? { node: node as SchemaNode, file } : null;
  }
}
