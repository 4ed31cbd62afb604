import { describePeer } from './conformance.ts';
import { createKoaPeer } from './koa.ts';

describePeer('koa', createKoaPeer);
