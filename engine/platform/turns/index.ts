export { OWN_TURN_FROM_BYTES, ownTurn, waitingForTurn } from './own-turn.ts';
