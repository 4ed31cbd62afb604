import type pg from 'pg';
import {
  postgresCode,
  postgresOpenError,
  translatePostgresError,
} from '../store/postgres/errors.ts';
import { migratePostgres } from '../store/postgres/migrations.ts';
import { createPostgresPool, type PostgresPoolConfig } from '../store/postgres/pool.ts';
import { type Statement, sqlTokenStore, type TokenRow, type TokenStore } from './token-store.ts';

const fail = (error: unknown) => {
  throw translatePostgresError(error);
};
const query = async (on: pg.Pool | pg.PoolClient, [sql, values]: Statement) =>
  (await on.query<TokenRow>(sql, [...values])).rows;

/**
 * Opens the managed tokens of a PostgreSQL plant store on a small pool of its own (see
 * `store/postgres/pool.ts`), migrating the database first, so the command-line tool works
 * before the server ever ran. Fails at once when the database cannot be reached.
 */
export async function createPostgresTokenStore(
  options: PostgresPoolConfig & { readonly url: string },
): Promise<TokenStore> {
  const { pool } = createPostgresPool({ ...options, role: 'tokens' });
  try {
    await migratePostgres(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw postgresOpenError(error, options.url); // one line: the masked URL, why, what to do
  }
  const isNameTaken = (error: unknown) =>
    postgresCode(error) === '23505' &&
    (error as { constraint?: unknown }).constraint === 'tokens_active_name';
  return sqlTokenStore({
    isNameTaken,
    run: async (statements) => {
      if (statements.length === 1)
        return Promise.all(statements.map((s) => query(pool, s))).catch(fail);
      const client = await pool.connect().catch(fail);
      try {
        await client.query('BEGIN');
        const rows: TokenRow[][] = [];
        for (const statement of statements) rows.push(await query(client, statement));
        await client.query('COMMIT');
        client.release();
        return rows;
      } catch (error) {
        await client.query('ROLLBACK').catch(() => undefined);
        // A refused name leaves the connection usable; after any other failure it is dropped.
        client.release(!isNameTaken(error));
        throw translatePostgresError(error);
      }
    },
    close: () => pool.end(),
  });
}
