// `nodeherd token`: issues the bearer token of a node agent (or the controller) from an embedded API
// server's data dir, for nodeherd-init or a hand-written kubeconfig. The server keeps only hashes,
// so an existing identity gets a new token and its old one stops working.

import { resolve } from 'node:path';
import { Command, InvalidArgumentError } from 'commander';
import { isValidNodeName } from '../apiserver/auth/identities.ts';
import { TokenStore } from '../apiserver/auth/tokens.ts';
import { nodeherdIdentities } from '../profile/nodeherd-identities.ts';

function nodeName(value: string): string {
  if (!isValidNodeName(value))
    throw new InvalidArgumentError('must be a valid Node name (an RFC 1123 subdomain)');
  return value;
}

export function tokenCommand(): Command {
  return new Command('token')
    .description(
      "issue a node agent's (or the controller's) bearer token from an embedded API server's data dir",
    )
    .option('--data-dir <dir>', 'the API server data dir', '.nodeherd/apiserver')
    .option('--node <name>', 'the node whose agent gets the token', nodeName)
    .option('--controller', "issue the controller's token instead")
    .action(async (opts: { dataDir: string; node?: string; controller?: boolean }) => {
      if (Boolean(opts.node) === Boolean(opts.controller)) {
        throw new InvalidArgumentError('give exactly one of --node <name> or --controller');
      }
      const store = TokenStore.open(resolve(opts.dataDir), nodeherdIdentities);
      const kind = opts.controller ? 'controller' : 'node';
      const ensured = await store.ensureIdentity(kind, opts.node);
      const token = ensured.token ?? (await store.rotate(kind, opts.node)).token;
      process.stdout.write(`${token}\n`);
    });
}
