import { createBareServer } from './bare-server.ts';
import { describePeer } from './peer-conformance.ts';

describePeer('bare', createBareServer);
