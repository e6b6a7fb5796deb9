/** Where `npm run dev` was invoked (scripts/run.mjs passes it through). */
export const invokedFrom = process.env.INIT_CWD ?? process.cwd();
