/** jsonata 2.2.2's parser (parser.js): the processed AST of `source`; throws the syntax error jsonata() would, before its message is filled in. */
declare function parser(source: string, recover?: boolean): object;
export default parser;
