import { randomBytes } from 'node:crypto';
import { onParentDeath } from '../../src/cluster/reaper';
import { run } from '../../src/provision/routes';

/** A network namespace joined to this host by a veth pair: a private link, nothing routed beyond it. */
export interface NetnsLink {
  /** The namespace's name, for `ip netns exec`. */
  ns: string;
  /** This host's end of the link, e.g. `10.213.7.1`. */
  hostIp: string;
  /** The namespace's end, e.g. `10.213.7.2`. */
  nsIp: string;
  /** The link's network, `10.213.7.0/30`. */
  network: string;
  /** Takes the link down: nothing crosses until {@link NetnsLink.heal}. */
  cut: () => Promise<void>;
  heal: () => Promise<void>;
  remove: () => Promise<void>;
}

/** Creates the namespace and the link (needs root and iproute2). */
export async function createNetnsLink(): Promise<NetnsLink> {
  const id = randomBytes(3).toString('hex');
  const ns = `dj-${id}`;
  const hostIf = `djh${id}`;
  const nsIf = `djn${id}`;
  const octet = 1 + (parseInt(id.slice(0, 2), 16) % 250);
  const hostIp = `10.213.${octet}.1`;
  const nsIp = `10.213.${octet}.2`;
  const ip = (...args: string[]) => run('ip', args).then(() => {});
  const remove = async () => {
    await ip('netns', 'del', ns).catch(() => {});
    await ip('link', 'del', hostIf).catch(() => {});
  };
  await ip('netns', 'add', ns);
  const cancelReaper = onParentDeath(`ip netns del ${ns}; ip link del ${hostIf}`);
  try {
    await ip('link', 'add', hostIf, 'type', 'veth', 'peer', 'name', nsIf);
    await ip('link', 'set', nsIf, 'netns', ns);
    await ip('addr', 'add', `${hostIp}/30`, 'dev', hostIf);
    await ip('link', 'set', hostIf, 'up');
    await ip('netns', 'exec', ns, 'ip', 'addr', 'add', `${nsIp}/30`, 'dev', nsIf);
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up');
    await ip('netns', 'exec', ns, 'ip', 'link', 'set', 'lo', 'up');
  } catch (err) {
    await remove();
    cancelReaper();
    throw err;
  }
  return {
    ns,
    hostIp,
    nsIp,
    network: `10.213.${octet}.0/30`,
    // Taken down from the namespace's side: the host keeps reaching its own end's address.
    cut: () => ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'down'),
    heal: () => ip('netns', 'exec', ns, 'ip', 'link', 'set', nsIf, 'up'),
    remove: async () => {
      await remove();
      cancelReaper();
    },
  };
}
