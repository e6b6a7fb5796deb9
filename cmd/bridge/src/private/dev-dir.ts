import { fileURLToPath } from 'node:url';

/**
 * Where `bridge dev` keeps its dev PKI and config unless told: certs/dev
 * of the checkout (this file is cmd/bridge/{src,dist}/private/, four
 * levels below it), whatever directory the command was typed in.
 */
export const DEFAULT_DEV_DIR = fileURLToPath(new URL('../../../../certs/dev', import.meta.url));
