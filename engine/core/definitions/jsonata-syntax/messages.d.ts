/** jsonata 2.2.2's populateMessage (messages.js): fills in `err.message` from its code, as jsonata() does before rethrowing. */
declare function populateMessage(err: unknown): void;
export default populateMessage;
