import { createKoaServer } from './koa-server.ts';
import { describePeer } from './peer-conformance.ts';

describePeer('koa', createKoaServer);
