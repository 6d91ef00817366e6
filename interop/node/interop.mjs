// gpupool with Confluent's JavaScript clients, as a Node user would: @confluentinc/schemaregistry's
// AvroSerializer / AvroDeserializer (auto-registration off: the stack registers every value schema at
// start) and kafkajs for the broker. Submits a 1-GPU, a fractional, an 8-GPU and a 2x8 gang job and a
// cancel for a job never submitted (which the scheduler dead-letters), then reads decisions, node
// commands, job events and the DLQ and checks that every job was placed, ran and got its GPUs back.
// Prints one "STEP <name> PASS|FAIL <detail>" line per check; exits 0 when all pass.
//
// Environment: GPUPOOL_BOOTSTRAP (host:port), GPUPOOL_REGISTRY (URL), GPUPOOL_TOPIC_PREFIX (default
// "gpupool"), GPUPOOL_POOL (default "default"), GPUPOOL_RUN (job id prefix), GPUPOOL_WAIT_S (default 90).
// Against `gpupool up --secure`: GPUPOOL_SECURITY=SASL_SSL, GPUPOOL_CA_PEM (the stack's CA, secure/ca.pem),
// GPUPOOL_SUBMIT_USER / GPUPOOL_SUBMIT_PASSWORD (the producer's principal, e.g. submitter),
// GPUPOOL_READ_USER / GPUPOOL_READ_PASSWORD (the readers', e.g. auditor) and GPUPOOL_REGISTRY_USER_INFO
// (user:password, a read-only registry user is enough). Then one more check: the broker refuses the
// submitter's write to the job events.
import { readFileSync } from 'node:fs';
import https from 'node:https';
import { Kafka, logLevel } from 'kafkajs';
import { SchemaRegistryClient, AvroSerializer, AvroDeserializer, SerdeType } from '@confluentinc/schemaregistry';

const env = (name, fallback) => process.env[name] ?? fallback;
const bootstrap = env('GPUPOOL_BOOTSTRAP');
const registryUrl = env('GPUPOOL_REGISTRY');
const prefix = env('GPUPOOL_TOPIC_PREFIX', 'gpupool');
const pool = env('GPUPOOL_POOL', 'default');
const run = env('GPUPOOL_RUN', `node-${Date.now()}`);
const waitMs = Number(env('GPUPOOL_WAIT_S', '90')) * 1000;
const topic = (id) => `${prefix}.${id}`;
// the auditor may join only groups of this prefix (StackAcls.AUDITOR_GROUPS), and a kafkajs consumer always joins one
const readerGroup = `gpupool-auditor-${run}`;

const security = env('GPUPOOL_SECURITY', '');
if (security !== '' && security !== 'SASL_SSL') {
  console.log(`GPUPOOL_SECURITY=${security}: only SASL_SSL (SCRAM-SHA-512 over TLS, as gpupool up --secure) is known`);
  process.exit(2);
}
const secured = security === 'SASL_SSL';
const required = (name) => {
  const v = env(name);
  if (v == null || v === '') throw new Error(`GPUPOOL_SECURITY=SASL_SSL needs ${name}`);
  return v;
};
const ca = secured ? [readFileSync(required('GPUPOOL_CA_PEM'), 'utf-8')] : undefined;
const registryUserInfo = env('GPUPOOL_REGISTRY_USER_INFO', '');
/** kafkajs as one principal: SCRAM-SHA-512 over TLS trusting the stack's CA; without security, as before. */
const kafkaAs = (who) => new Kafka({
  clientId: 'gpupool-interop-node', brokers: [bootstrap], logLevel: logLevel.WARN,
  ...(secured ? {
    ssl: { ca },
    sasl: { mechanism: 'scram-sha-512', username: required(`GPUPOOL_${who}_USER`), password: required(`GPUPOOL_${who}_PASSWORD`) },
  } : {}),
});

let failures = 0;
const step = (name, ok, detail = '') => {
  if (!ok) failures++;
  console.log(`STEP ${name} ${ok ? 'PASS' : 'FAIL'} ${detail}`);
};

const registry = new SchemaRegistryClient({
  baseURLs: [registryUrl],
  ...(registryUserInfo !== '' ? { basicAuthCredentials: { credentialsSource: 'USER_INFO', userInfo: registryUserInfo } } : {}),
  // the client makes its requests with axios, which takes the CA through an https.Agent
  ...(ca ? { createAxiosDefaults: { httpsAgent: new https.Agent({ ca }) } } : {}),
});
const serializer = new AvroSerializer(registry, SerdeType.VALUE, { autoRegisterSchemas: false, useLatestVersion: true });
const deserializer = new AvroDeserializer(registry, SerdeType.VALUE, {});
const submitter = kafkaAs('SUBMIT');
const reader = kafkaAs('READ');

// A JobRequest as the registered schema has it; a union of two records (the command) is wrapped, as avsc wants.
const request = (name, shape) => ({
  name, tenant: 'interop', queue: null, labels: { client: 'kafkajs' }, pool, priorityClass: 'batch', priority: 0,
  preemptible: false, nodes: 1, gpusPerNode: 0, gpuMilli: null, gpuMemoryMiB: null, cpuMilliPerNode: null,
  memoryMiBPerNode: null, gpuModels: [], network: 'ANY', topology: 'NONE', topologyMode: 'PREFERRED', deadline: null,
  rejectIfDeadlineMissed: false, runtimeEstimateMillis: null, exec: null, simulatedRuntimeMillis: 1500, ...shape,
});
const submit = (jobId, req) => ({
  jobId, commandId: `${jobId}-submit`, requestedAt: null, requestedBy: 'interop-node',
  command: { 'io.gpupool.avro.JobSubmit': { request: req } },
});
const cancel = (jobId) => ({
  jobId, commandId: `${jobId}-cancel`, requestedAt: null, requestedBy: 'interop-node',
  command: { 'io.gpupool.avro.JobCancel': { reason: 'interop: a job never submitted' } },
});

const jobs = {
  [`${run}-one`]: { gpusPerNode: 1 },
  [`${run}-frac`]: { gpuMilli: 500, gpuMemoryMiB: 10000 },
  [`${run}-eight`]: { gpusPerNode: 8 },
  [`${run}-gang`]: { nodes: 2, gpusPerNode: 8 },
};
const ghost = `${run}-ghost`;

async function produce() {
  const producer = submitter.producer();
  await producer.connect();
  const messages = [];
  for (const [id, shape] of Object.entries(jobs)) {
    messages.push({ key: id, value: await serializer.serialize(topic('jobs'), submit(id, request(id, shape))) });
  }
  messages.push({ key: ghost, value: await serializer.serialize(topic('jobs'), cancel(ghost)) });
  await producer.send({ topic: topic('jobs'), messages });
  await producer.disconnect();
}

/** The broker's error code behind a kafkajs error, which may wrap it (a retrier's error names its cause). */
const protocolError = (e) => (e == null ? undefined : e.type ?? protocolError(e.cause));

/** Secured only: the submitter may write jobs, not job events (a forged COMPLETED); the broker says so. */
async function writeToJobEventsIsRefused() {
  const producer = submitter.producer({ allowAutoTopicCreation: false, retry: { retries: 0 } });
  await producer.connect();
  try {
    await producer.send({ topic: topic('job-events'), messages: [{ key: ghost, value: Buffer.from('a forged COMPLETED') }] });
    step('write-refused:job-events', false, `the broker took a job event from ${env('GPUPOOL_SUBMIT_USER')}`);
  } catch (e) {
    const code = protocolError(e);
    step('write-refused:job-events', code === 'TOPIC_AUTHORIZATION_FAILED', `${env('GPUPOOL_SUBMIT_USER')}: ${code ?? e}`);
  } finally {
    await producer.disconnect();
  }
}

/** Reads the topics from the beginning until done() says so or the wait runs out. */
async function consume(topics, onRecord, done) {
  const consumer = reader.consumer({ groupId: readerGroup, maxWaitTimeInMs: 200 });
  await consumer.connect();
  for (const t of topics) {
    await consumer.subscribe({ topic: t, fromBeginning: true });
  }
  let error = null;
  await consumer.run({
    eachMessage: async ({ topic: t, message }) => {
      try {
        await onRecord(t, message);
      } catch (e) {
        error = error ?? e;
      }
    },
  });
  const deadline = Date.now() + waitMs;
  while (!done() && error == null && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 250));
  }
  await consumer.disconnect();
  if (error != null) throw error;
}

const decisions = new Map(); // job id -> [outcome]
const placedNodes = new Map(); // job id -> set of nodes of its PLACED decision
const commands = new Map(); // job id -> [type@node]
const events = new Map(); // job id -> [type]
const deadLetters = [];
const push = (m, k, v) => (m.get(k) ?? m.set(k, []).get(k)).push(v);
const header = (message, name) => message.headers?.[name]?.toString();

const ids = Object.keys(jobs);
const released = (id) => (decisions.get(id) ?? []).includes('RELEASED');
const ended = (id) => (events.get(id) ?? []).some((t) => ['COMPLETED', 'RELEASED', 'FAILED'].includes(t));
const allDone = () => ids.every((id) => released(id) && ended(id)) && deadLetters.length > 0;

async function main() {
  for (const id of ['jobs', 'job-events', 'decisions', 'node-commands']) {
    const latest = await registry.getLatestSchemaMetadata(`${topic(id)}-value`);
    step(`schema-registered:${id}`, latest.id > 0, `${topic(id)}-value id ${latest.id} version ${latest.version}`);
  }
  await produce();
  step('submit', true, `${ids.length} jobs and a cancel for ${ghost} with AvroSerializer (auto-register off)`);
  if (secured) {
    await writeToJobEventsIsRefused();
  }
  const mine = (id) => id != null && id.startsWith(`${run}-`);
  await consume([topic('decisions'), topic('node-commands'), topic('job-events'), topic('dlq')], async (t, message) => {
    if (t === topic('dlq')) {
      if (header(message, 'gpupool.dlq.topic') !== topic('jobs') || message.key?.toString() !== ghost) return;
      // the DLQ keeps the original bytes: decode them as the topic they were written to
      const original = await deserializer.deserialize(header(message, 'gpupool.dlq.topic'), message.value);
      deadLetters.push({ jobId: original.jobId, error: header(message, 'gpupool.dlq.error.message'),
        where: `${header(message, 'gpupool.dlq.topic')}-${header(message, 'gpupool.dlq.partition')}@${header(message, 'gpupool.dlq.offset')}` });
      return;
    }
    const value = await deserializer.deserialize(t, message.value);
    if (!mine(value.jobId)) return;
    if (t === topic('decisions')) {
      push(decisions, value.jobId, value.outcome);
      if (value.outcome === 'PLACED') placedNodes.set(value.jobId, new Set(value.assignments.map((a) => a.nodeId)));
    } else if (t === topic('node-commands')) {
      push(commands, value.jobId, `${value.type}@${value.nodeId}`);
    } else {
      push(events, value.jobId, value.type);
    }
  }, allDone);

  for (const id of ids) {
    const outcomes = decisions.get(id) ?? [];
    step(`placed:${id}`, outcomes.includes('PLACED'), `decisions ${outcomes.join(',')}`);
    const nodes = [...(placedNodes.get(id) ?? [])];
    const allocated = nodes.every((n) => (commands.get(id) ?? []).includes(`ALLOCATE@${n}`));
    step(`node-commands:${id}`, nodes.length > 0 && allocated, `${(commands.get(id) ?? []).join(',')}`);
    const ev = events.get(id) ?? [];
    step(`job-events:${id}`, ev.includes('STARTED') && ended(id), ev.join(','));
    step(`released:${id}`, released(id), `decisions ${outcomes.join(',')}`);
  }
  const dl = deadLetters[0];
  step('dlq', dl != null && dl.jobId === ghost && dl.error?.includes('never submitted'),
    dl == null ? 'no dead letter for the cancel' : `${dl.where}: ${dl.error}`);
}

try {
  await main();
} catch (e) {
  step('run', false, String(e?.stack ?? e));
}
console.log(failures === 0 ? 'ALL PASS' : `${failures} FAILED`);
process.exit(failures === 0 ? 0 : 1);
