import { createBarePeer } from './bare.ts';
import { describePeer } from './conformance.ts';

describePeer('bare', createBarePeer);
