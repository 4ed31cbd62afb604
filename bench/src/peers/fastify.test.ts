import { describePeer } from './conformance.ts';
import { createFastifyPeer } from './fastify.ts';

describePeer('fastify', createFastifyPeer);
