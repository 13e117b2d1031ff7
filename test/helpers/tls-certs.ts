import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/** A server certificate and its key, PEM. */
export interface TestCert {
  cert: string;
  key: string;
}

/** Certificates a test relay can present, made fresh by {@link makeTestCerts}. */
export interface TestCerts {
  /** The directory the PEM files live in; removed by `remove()`. */
  dir: string;
  /** A test certificate authority's certificate (PEM), and the file that holds it, for SMTP_CA_FILE. */
  ca: { cert: string; file: string };
  /** Signed by no one but itself, for localhost and 127.0.0.1. */
  selfSigned: TestCert;
  /** Signed by the test CA, for localhost and 127.0.0.1. */
  signed: TestCert;
  /** Signed by the test CA, but for mail.example.com only. */
  wrongHost: TestCert;
  /** Signed by the test CA for localhost and 127.0.0.1, and expired a day ago. */
  expired: TestCert;
  remove: () => Promise<void>;
}

const loopbackNames = 'subjectAltName=DNS:localhost,IP:127.0.0.1';

/**
 * Makes a test CA and server certificates with the `openssl` binary (node:crypto reads
 * certificates but cannot issue them). EC P-256 keys, so it takes well under a second.
 */
export async function makeTestCerts(): Promise<TestCerts> {
  const dir = await mkdtemp(path.join(os.tmpdir(), 'test-certs-'));
  const file = (name: string) => path.join(dir, name);
  const openssl = async (...args: string[]) => {
    try {
      await run('openssl', args, { cwd: dir });
    } catch (err) {
      throw new Error(`these tests make their certificates with the openssl binary, which failed (install openssl): ${(err as Error).message}`, { cause: err });
    }
  };
  const newKey = ['-newkey', 'ec', '-pkeyopt', 'ec_paramgen_curve:P-256', '-nodes'];
  await openssl('req', '-x509', ...newKey, '-keyout', 'ca.key', '-out', 'ca.pem', '-days', '2', '-subj', '/CN=durable-jobs test CA',
    '-addext', 'basicConstraints=critical,CA:TRUE', '-addext', 'keyUsage=critical,keyCertSign,cRLSign');
  await openssl('req', '-x509', ...newKey, '-keyout', 'self.key', '-out', 'self.pem', '-days', '2', '-subj', '/CN=localhost', '-addext', loopbackNames);

  async function signedLeaf(name: string, altNames: string, days: number): Promise<TestCert> {
    await writeFile(file(`${name}.ext`), `${altNames}\n`);
    await openssl('req', ...newKey, '-keyout', `${name}.key`, '-out', `${name}.csr`, '-subj', `/CN=${name}`);
    // A negative -days puts notAfter before now: an expired certificate.
    await openssl('x509', '-req', '-in', `${name}.csr`, '-CA', 'ca.pem', '-CAkey', 'ca.key', '-CAcreateserial', '-days', String(days), '-extfile', `${name}.ext`, '-out', `${name}.pem`);
    return read(name);
  }
  const read = async (name: string): Promise<TestCert> => ({ cert: await readFile(file(`${name}.pem`), 'utf8'), key: await readFile(file(`${name}.key`), 'utf8') });

  return {
    dir,
    ca: { cert: await readFile(file('ca.pem'), 'utf8'), file: file('ca.pem') },
    selfSigned: await read('self'),
    signed: await signedLeaf('signed', loopbackNames, 2),
    wrongHost: await signedLeaf('wrong-host', 'subjectAltName=DNS:mail.example.com', 2),
    expired: await signedLeaf('expired', loopbackNames, -1),
    remove: () => rm(dir, { recursive: true, force: true }),
  };
}
