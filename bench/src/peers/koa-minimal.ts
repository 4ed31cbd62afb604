import { hash } from 'node:crypto';
import { createServer, type Server } from 'node:http';
import { Router } from '@koa/router';
import { type PlantField, plantOf } from '@plant-store/schema';
import Koa from 'koa';
import bodyParser from 'koa-bodyparser';
import { SqliteGroupCommit } from './sqlite-commit.ts';

/**
 * The floor of the price-of-features row: stock Koa + @koa/router + koa-bodyparser doing the
 * same durable write as the server (its `plants` table, WAL, `synchronous=FULL`, group commit)
 * behind a bearer check, and nothing else: no limits, no request log, no metrics, no request
 * id, no Error-shape mapping beyond Koa's own. What a user would write in an afternoon.
 *
 * @example
 * createMinimalKoaPeer({ databaseFile: '/tmp/plants.db', tokens: ['…'], bodyLimitBytes: 65536 });
 */
export function createMinimalKoaPeer(options: {
  readonly databaseFile: string;
  readonly tokens: readonly string[];
  readonly bodyLimitBytes: number;
}): { server: Server; close(): void } {
  const store = new SqliteGroupCommit(options.databaseFile);
  const digests = new Set(options.tokens.map((token) => hash('sha256', token, 'hex')));
  const app = new Koa();
  const router = new Router();
  router.post(
    '/plants',
    async (ctx, next) => {
      const bearer = /^Bearer (.+)$/.exec(ctx.get('authorization'))?.[1] ?? '';
      if (!digests.has(hash('sha256', bearer, 'hex'))) ctx.throw(401);
      await next();
    },
    bodyParser({ enableTypes: ['json'], jsonLimit: String(options.bodyLimitBytes), strict: true }),
    async (ctx) => {
      const body = (ctx.request.body ?? {}) as Record<string, unknown>;
      if (!Number.isSafeInteger(body.id) || typeof body.name !== 'string') return ctx.throw(400);
      const plant = plantOf(body as Record<PlantField, string>); // each field that is a string
      if ((await store.create({ id: BigInt(body.id as number), ...plant })) !== 'created') {
        ctx.throw(409);
      }
      ctx.body = plant;
    },
  );
  app.use(router.routes());
  return { server: createServer(app.callback()), close: () => store.close() };
}
