import { createFastifyServer } from './fastify-server.ts';
import { describePeer } from './peer-conformance.ts';

describePeer('fastify', createFastifyServer);
