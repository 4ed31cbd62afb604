import { extendZodWithOpenApi } from '@asteasolutions/zod-to-openapi';
import { z } from 'zod';

// One place adds `.openapi()` to zod, so every schema module sees the same extended `z`.
extendZodWithOpenApi(z);

export { z };
