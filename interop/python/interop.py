"""gpupool with Confluent's Python client, as a Python user would, from Debian packages only.

python3-confluent-kafka (1.7.0 in Debian 12) with its legacy Avro support (confluent_kafka.avro:
CachedSchemaRegistryClient, MessageSerializer, AvroProducer), which runs on python3-avro and
python3-requests; the newer confluent_kafka.schema_registry.avro serializer needs fastavro, which
Debian does not package. Submits a 1-GPU, a fractional, an 8-GPU (through AvroProducer, so with an
Avro-serialized string key) and a 2x8 gang job and a cancel for a job never submitted (which the
scheduler dead-letters), then reads decisions, node commands, job events and the DLQ and checks that
every job was placed, ran and got its GPUs back. Prints one "STEP <name> PASS|FAIL <detail>" line per
check; exits 0 when all pass.

Environment: GPUPOOL_BOOTSTRAP, GPUPOOL_REGISTRY, GPUPOOL_TOPIC_PREFIX (default "gpupool"),
GPUPOOL_POOL (default "default"), GPUPOOL_RUN (job id prefix), GPUPOOL_WAIT_S (default 90).
Against `gpupool up --secure`: GPUPOOL_SECURITY=SASL_SSL, GPUPOOL_CA_PEM (the stack's CA, secure/ca.pem),
GPUPOOL_SUBMIT_USER / GPUPOOL_SUBMIT_PASSWORD (the producers' principal, e.g. submitter),
GPUPOOL_READ_USER / GPUPOOL_READ_PASSWORD (the reader's, e.g. auditor) and GPUPOOL_REGISTRY_USER_INFO
(user:password, a read-only registry user is enough: the Avro key's schema, "string" under
<prefix>.jobs-key, is then looked up, not registered, so the admin registers it first). Then one more
check: the broker refuses the submitter's write to the job events.
"""
import os
import sys
import time
import traceback

from confluent_kafka import Consumer, KafkaError, Producer, libversion
from confluent_kafka.avro import AvroProducer, CachedSchemaRegistryClient, loads
from confluent_kafka.avro.serializer.message_serializer import MessageSerializer

BOOTSTRAP = os.environ["GPUPOOL_BOOTSTRAP"]
REGISTRY = os.environ["GPUPOOL_REGISTRY"]
PREFIX = os.environ.get("GPUPOOL_TOPIC_PREFIX", "gpupool")
POOL = os.environ.get("GPUPOOL_POOL", "default")
RUN = os.environ.get("GPUPOOL_RUN", "python-%d" % int(time.time()))
WAIT_S = float(os.environ.get("GPUPOOL_WAIT_S", "90"))
SECURITY = os.environ.get("GPUPOOL_SECURITY", "")
if SECURITY not in ("", "SASL_SSL"):
    sys.exit("GPUPOOL_SECURITY=%s: only SASL_SSL (SCRAM-SHA-512 over TLS, as gpupool up --secure) is known" % SECURITY)
SECURED = SECURITY == "SASL_SSL"
# SCRAM-SHA-512 by default; PLAIN (over the same TLS) for a librdkafka whose SCRAM Kafka 4 refuses, see below
SASL_MECHANISM = os.environ.get("GPUPOOL_SASL_MECHANISM", "SCRAM-SHA-512")
if SASL_MECHANISM not in ("SCRAM-SHA-512", "PLAIN"):
    sys.exit("GPUPOOL_SASL_MECHANISM=%s: gpupool up --secure offers SCRAM-SHA-512 and PLAIN" % SASL_MECHANISM)
REGISTRY_USER_INFO = os.environ.get("GPUPOOL_REGISTRY_USER_INFO", "")
# the auditor may join only groups of this prefix (StackAcls.AUDITOR_GROUPS)
READER_GROUP = "gpupool-auditor-" + RUN
# librdkafka before 2.6.1 sends its SCRAM nonce twice in the final message, which Kafka 4 brokers refuse as
# invalid credentials (librdkafka pull request 4895); Debian 12's python3-confluent-kafka runs on librdkafka 2.0.2
SCRAM_FIXED_IN = (2, 6, 1)

failures = 0


def step(name, ok, detail=""):
    global failures
    if not ok:
        failures += 1
    print("STEP %s %s %s" % (name, "PASS" if ok else "FAIL", detail), flush=True)


def topic(name):
    return "%s.%s" % (PREFIX, name)


def request(name, **shape):
    r = {
        "name": name, "tenant": "interop", "queue": None, "labels": {"client": "confluent-kafka-python"},
        "pool": POOL, "priorityClass": "batch", "priority": 0, "preemptible": False, "nodes": 1, "gpusPerNode": 0,
        "gpuMilli": None, "gpuMemoryMiB": None, "cpuMilliPerNode": None, "memoryMiBPerNode": None, "gpuModels": [],
        "network": "ANY", "topology": "NONE", "topologyMode": "PREFERRED", "deadline": None,
        "rejectIfDeadlineMissed": False, "runtimeEstimateMillis": None, "exec": None, "simulatedRuntimeMillis": 1500,
    }
    r.update(shape)
    return r


def submit(job_id, req):
    return {"jobId": job_id, "commandId": job_id + "-submit", "requestedAt": None, "requestedBy": "interop-python",
            "command": {"request": req}}


def cancel(job_id):
    return {"jobId": job_id, "commandId": job_id + "-cancel", "requestedAt": None, "requestedBy": "interop-python",
            "command": {"reason": "interop: a job never submitted"}}


JOBS = {
    RUN + "-one": {"gpusPerNode": 1},
    RUN + "-frac": {"gpuMilli": 500, "gpuMemoryMiB": 10000},
    RUN + "-eight": {"gpusPerNode": 8},
    RUN + "-gang": {"nodes": 2, "gpusPerNode": 8},
}
AVRO_KEYED = RUN + "-eight"
GHOST = RUN + "-ghost"


def required(name):
    value = os.environ.get(name, "")
    if not value:
        raise RuntimeError("GPUPOOL_SECURITY=SASL_SSL needs " + name)
    return value


def broker(who):
    """librdkafka's settings as one principal: SASL (SCRAM-SHA-512 or PLAIN) over TLS trusting the stack's CA; without security, none."""
    conf = {"bootstrap.servers": BOOTSTRAP}
    if SECURED:
        conf.update({"security.protocol": "SASL_SSL", "sasl.mechanisms": SASL_MECHANISM,
                     "sasl.username": required("GPUPOOL_%s_USER" % who), "sasl.password": required("GPUPOOL_%s_PASSWORD" % who),
                     "ssl.ca.location": required("GPUPOOL_CA_PEM")})
    return conf


def registry_conf(prefix=""):
    """The legacy CachedSchemaRegistryClient's settings (AvroProducer takes them with the schema.registry. prefix)."""
    conf = {prefix + "url": REGISTRY}
    if SECURED:
        conf[prefix + "ssl.ca.location"] = required("GPUPOOL_CA_PEM")
        # the client gives it to its requests Session as verify, which requests replaces by REQUESTS_CA_BUNDLE or
        # CURL_CA_BUNDLE when one is set (as on many machines, for the system's CAs): the stack's CA must win
        os.environ["REQUESTS_CA_BUNDLE"] = conf[prefix + "ssl.ca.location"]
        # a read-only registry user looks schemas up; registering would be refused
        conf[prefix + "auto.register.schemas"] = False
    if REGISTRY_USER_INFO:
        conf[prefix + "basic.auth.credentials.source"] = "USER_INFO"
        conf[prefix + "basic.auth.user.info"] = REGISTRY_USER_INFO
    return conf


def broker_login():
    """Secured only: each principal logs in (SCRAM over TLS, the broker's certificate checked against the CA)."""
    for who in ("SUBMIT", "READ"):
        errors = []
        client = Producer(dict(broker(who), **{"error_cb": errors.append}))
        ok, why, deadline = False, [], time.time() + 15
        while not ok and not why:
            try:
                client.list_topics(timeout=1)
                ok = True
            except Exception as e:  # the metadata request fails; why, error_cb says when polled
                client.poll(0.2)
                # a refused login is final: librdkafka would only retry it until the timeout
                why = [x.str() for x in errors if x.code() == KafkaError._AUTHENTICATION]
                if not why and time.time() > deadline:
                    why = [str(e)]
        detail = "%s, %s over %s" % (os.environ.get("GPUPOOL_%s_USER" % who), SASL_MECHANISM, SECURITY) if ok \
            else "%s: %s" % (os.environ.get("GPUPOOL_%s_USER" % who), why[-1])
        if not ok and SASL_MECHANISM != "PLAIN" and parse_version(libversion()[0]) < SCRAM_FIXED_IN:
            detail += " (librdkafka %s: SCRAM to a Kafka 4 broker needs librdkafka %s or newer; GPUPOOL_SASL_MECHANISM=PLAIN" \
                      " logs in over the same TLS)" % (libversion()[0], ".".join(map(str, SCRAM_FIXED_IN)))
        step("broker-login:" + who.lower(), ok, detail)
        if not ok:
            return False
    return True


def parse_version(text):
    return tuple(int(p) for p in text.split("-")[0].split(".")[:3])


def write_to_job_events_is_refused():
    """Secured only: the submitter may write jobs, not job events (a forged COMPLETED); the broker says so."""
    reports = []
    producer = Producer(dict(broker("SUBMIT"), **{"message.timeout.ms": 30000}))
    producer.produce(topic("job-events"), key=GHOST.encode("utf-8"), value=b"a forged COMPLETED",
                     on_delivery=lambda err, msg: reports.append(err))
    producer.flush(60)
    err = reports[0] if reports else None
    who = os.environ.get("GPUPOOL_SUBMIT_USER")
    step("write-refused:job-events", err is not None and err.code() == KafkaError.TOPIC_AUTHORIZATION_FAILED,
         "%s: %s" % (who, "no delivery report" if not reports else err.name() if err else "the broker took a job event"))


def header(msg, name):
    for k, v in msg.headers() or []:
        if k == name:
            return v.decode("utf-8")
    return None


def main():
    registry = CachedSchemaRegistryClient(registry_conf())
    serde = MessageSerializer(registry)
    for name in ("jobs", "job-events", "decisions", "node-commands"):
        schema_id, _, version = registry.get_latest_schema(topic(name) + "-value")
        step("schema-registered:" + name, schema_id is not None, "%s-value id %s version %s" % (topic(name), schema_id, version))
    jobs_id, jobs_schema, _ = registry.get_latest_schema(topic("jobs") + "-value")
    if SECURED and not broker_login():
        return  # every later step needs the broker

    producer = Producer(broker("SUBMIT"))
    for job_id, shape in JOBS.items():
        if job_id != AVRO_KEYED:
            producer.produce(topic("jobs"), key=job_id.encode("utf-8"),
                             value=serde.encode_record_with_schema_id(jobs_id, submit(job_id, request(job_id, **shape))))
    producer.produce(topic("jobs"), key=GHOST.encode("utf-8"), value=serde.encode_record_with_schema_id(jobs_id, cancel(GHOST)))
    step("submit", producer.flush(30) == 0, "%d jobs with the string key, a cancel for %s" % (len(JOBS) - 1, GHOST))
    # the legacy AvroProducer serializes the key too: an Avro string key is the same job id
    avro_producer = AvroProducer(dict(broker("SUBMIT"), **registry_conf("schema.registry.")),
                                 default_key_schema=loads('"string"'), default_value_schema=jobs_schema)
    avro_producer.produce(topic=topic("jobs"), key=AVRO_KEYED, value=submit(AVRO_KEYED, request(AVRO_KEYED, **JOBS[AVRO_KEYED])))
    step("submit-avro-key", avro_producer.flush(30) == 0, AVRO_KEYED + " through AvroProducer (Avro-serialized key)")
    if SECURED:
        write_to_job_events_is_refused()

    decisions, placed_nodes, commands, events, dead = {}, {}, {}, {}, []
    released = lambda j: "RELEASED" in decisions.get(j, [])
    ended = lambda j: any(t in ("COMPLETED", "RELEASED", "FAILED") for t in events.get(j, []))
    done = lambda: all(released(j) and ended(j) for j in JOBS) and dead

    consumer = Consumer(dict(broker("READ"), **{"group.id": READER_GROUP, "auto.offset.reset": "earliest",
                                                "enable.auto.commit": False}))
    consumer.subscribe([topic("decisions"), topic("node-commands"), topic("job-events"), topic("dlq")])
    deadline = time.time() + WAIT_S
    try:
        while not done() and time.time() < deadline:
            msg = consumer.poll(0.5)
            if msg is None:
                continue
            if msg.error():
                raise RuntimeError(str(msg.error()))
            if msg.topic() == topic("dlq"):
                if header(msg, "gpupool.dlq.topic") == topic("jobs") and msg.key() == GHOST.encode("utf-8"):
                    # the DLQ keeps the original bytes: the official deserializer reads them as written
                    original = serde.decode_message(msg.value())
                    dead.append((original["jobId"], header(msg, "gpupool.dlq.error.message"), "%s-%s@%s" % (
                        header(msg, "gpupool.dlq.topic"), header(msg, "gpupool.dlq.partition"), header(msg, "gpupool.dlq.offset"))))
                continue
            value = serde.decode_message(msg.value())
            job = value.get("jobId")
            if job not in JOBS:
                continue
            if msg.topic() == topic("decisions"):
                decisions.setdefault(job, []).append(value["outcome"])
                if value["outcome"] == "PLACED":
                    placed_nodes[job] = {a["nodeId"] for a in value["assignments"]}
            elif msg.topic() == topic("node-commands"):
                commands.setdefault(job, []).append("%s@%s" % (value["type"], value["nodeId"]))
            else:
                events.setdefault(job, []).append(value["type"])
    finally:
        consumer.close()

    for job in JOBS:
        outcomes = decisions.get(job, [])
        step("placed:" + job, "PLACED" in outcomes, "decisions " + ",".join(outcomes))
        nodes = placed_nodes.get(job, set())
        allocated = all("ALLOCATE@" + n in commands.get(job, []) for n in nodes)
        step("node-commands:" + job, bool(nodes) and allocated, ",".join(commands.get(job, [])))
        step("job-events:" + job, "STARTED" in events.get(job, []) and ended(job), ",".join(events.get(job, [])))
        step("released:" + job, released(job), "decisions " + ",".join(outcomes))
    first = dead[0] if dead else None
    step("dlq", first is not None and first[0] == GHOST and "never submitted" in (first[1] or ""),
         "no dead letter for the cancel" if first is None else "%s: %s" % (first[2], first[1]))


if __name__ == "__main__":
    try:
        main()
    except Exception:
        step("run", False, traceback.format_exc().replace("\n", " | "))
    print("ALL PASS" if failures == 0 else "%d FAILED" % failures, flush=True)
    sys.exit(0 if failures == 0 else 1)
