package io.gpupool.cli.submit;

import com.fasterxml.jackson.core.JsonProcessingException;
import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.dataformat.yaml.YAMLFactory;
import io.gpupool.avro.ExecSpec;
import io.gpupool.avro.JobRequest;
import io.gpupool.cli.config.DurationConverter;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.time.format.DateTimeParseException;
import java.util.ArrayList;
import java.util.Iterator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/**
 * A job request in a JSON or YAML file ({@code gpupool submit -f job.yaml}): one field per submit flag,
 * named like it ({@code gpus}, {@code runtimeEstimate: 30m}, {@code command}), the JobRequest schema's
 * older names ({@code gpusPerNode}, {@code runtimeEstimateMillis}, an {@code exec} block) still read.
 * Durations are "90s", "2h" or milliseconds, the deadline an ISO instant. An unknown field or a wrong
 * type fails with the field's path and the names that are allowed, so a typo is not silently dropped.
 */
public final class JobFile {

    /** The fields a job file has: the submit flags' names in camelCase ({@code --gpu-memory-mib} is gpuMemoryMib). */
    static final List<String> FIELDS = List.of("jobId", "name", "tenant", "queue", "labels", "pool", "priorityClass",
            "priority", "preemptible", "nodes", "gpus", "gpuMilli", "gpuMemoryMib", "cpuMilli", "memoryMib", "gpuModel",
            "network", "topology", "topologyMode", "deadline", "rejectIfLate", "runtimeEstimate", "simulatedRuntime",
            "command", "args", "env", "workdir", "grace");
    /** The JobRequest schema's names, which files used before they took the flags' names: still read. */
    private static final Map<String, String> OLD_NAMES = Map.of("gpusPerNode", "gpus", "gpuMemoryMiB", "gpuMemoryMib",
            "cpuMilliPerNode", "cpuMilli", "memoryMiBPerNode", "memoryMib", "gpuModels", "gpuModel",
            "rejectIfDeadlineMissed", "rejectIfLate", "runtimeEstimateMillis", "runtimeEstimate",
            "simulatedRuntimeMillis", "simulatedRuntime");

    private final String jobId;
    private final JobRequest.Builder request;

    private JobFile(final String jobId, final JobRequest.Builder request) {
        this.jobId = jobId;
        this.request = request;
    }

    /** The job id the file names, or null. */
    public String jobId() {
        return jobId;
    }

    /** The request as the file gives it; required fields the file leaves out are for the flags to fill. */
    public JobRequest.Builder request() {
        return request;
    }

    public static JobFile read(final Path file) {
        if (!Files.isRegularFile(file)) {
            throw new IllegalArgumentException("-f " + file + " is not a file; give a job request as JSON or YAML");
        }
        final String name = file.getFileName().toString().toLowerCase(Locale.ROOT);
        final ObjectMapper mapper = name.endsWith(".json") ? new ObjectMapper() : new ObjectMapper(new YAMLFactory());
        final JsonNode root;
        try {
            root = mapper.readTree(file.toFile());
        } catch (JsonProcessingException e) {
            throw new IllegalArgumentException("-f " + file + " is not valid " + (name.endsWith(".json") ? "JSON" : "YAML")
                    + ": " + e.getOriginalMessage() + (e.getLocation() == null ? "" : " (line " + e.getLocation().getLineNr() + ")"));
        } catch (IOException e) {
            throw new IllegalArgumentException("-f " + file + " cannot be read: " + e.getMessage());
        }
        return parse(root, file.toString());
    }

    static JobFile parse(final JsonNode root, final String where) {
        if (root == null || !root.isObject()) {
            throw new IllegalArgumentException(where + ": a job request is an object of fields, e.g. {\"tenant\": \"vision\", "
                    + "\"gpus\": 1}; `gpupool submit --example` prints one");
        }
        final JobRequest.Builder b = JobRequest.newBuilder();
        final ExecSpec.Builder exec = ExecSpec.newBuilder();
        boolean hasExec = false;
        String jobId = null;
        for (final Iterator<Map.Entry<String, JsonNode>> it = root.fields(); it.hasNext(); ) {
            final Map.Entry<String, JsonNode> e = it.next();
            final String f = OLD_NAMES.getOrDefault(e.getKey(), e.getKey());
            final Field field = new Field(where, e.getKey(), e.getValue());
            switch (f) {
                case "jobId" -> jobId = field.text();
                case "name" -> b.setName(field.text());
                case "tenant" -> b.setTenant(field.text());
                case "queue" -> b.setQueue(field.text());
                case "labels" -> b.setLabels(field.stringMap());
                case "pool" -> b.setPool(field.text());
                case "priorityClass" -> b.setPriorityClass(field.text());
                case "priority" -> b.setPriority(field.integer());
                case "preemptible" -> b.setPreemptible(field.bool());
                case "nodes" -> b.setNodes(field.integer());
                case "gpus" -> b.setGpusPerNode(field.integer());
                case "gpuMilli" -> b.setGpuMilli(field.integer());
                case "gpuMemoryMib" -> b.setGpuMemoryMiB(field.longValue());
                case "cpuMilli" -> b.setCpuMilliPerNode(field.longValue());
                case "memoryMib" -> b.setMemoryMiBPerNode(field.longValue());
                case "gpuModel" -> b.setGpuModels(field.strings());
                case "network" -> b.setNetwork(JobFlags.network(field.text()));
                case "topology" -> b.setTopology(JobFlags.topology(field.text()));
                case "topologyMode" -> b.setTopologyMode(JobFlags.topologyMode(field.text()));
                case "deadline" -> b.setDeadline(field.instant());
                case "rejectIfLate" -> b.setRejectIfDeadlineMissed(field.bool());
                case "runtimeEstimate" -> b.setRuntimeEstimateMillis(field.millis());
                case "simulatedRuntime" -> b.setSimulatedRuntimeMillis(field.millis());
                case "command" -> {
                    exec.setCommand(field.strings());
                    hasExec = true;
                }
                case "args" -> {
                    exec.setArgs(field.strings());
                    hasExec = true;
                }
                case "env" -> {
                    exec.setEnv(field.stringMap());
                    hasExec = true;
                }
                case "workdir" -> {
                    exec.setWorkingDir(field.text());
                    hasExec = true;
                }
                case "grace" -> {
                    exec.setGracePeriodMillis(field.millis());
                    hasExec = true;
                }
                case "exec" -> {
                    exec(field, where, exec);
                    hasExec = true;
                }
                default -> throw new IllegalArgumentException(where + ": unknown field '" + e.getKey() + "'; a job file has "
                        + String.join(", ", FIELDS) + " (`gpupool submit --example` shows each)");
            }
        }
        if (hasExec) {
            b.setExec(exec.build());
        }
        return new JobFile(jobId, b);
    }

    /** The schema's old names (and the exec block's), still read, for files written before the flags' names. */
    private static void exec(final Field exec, final String where, final ExecSpec.Builder b) {
        if (!exec.value.isObject()) {
            throw exec.wrong("an object with command, args, env, workdir, grace (or give those at the top level)");
        }
        for (final Iterator<Map.Entry<String, JsonNode>> it = exec.value.fields(); it.hasNext(); ) {
            final Map.Entry<String, JsonNode> e = it.next();
            final Field field = new Field(where, "exec." + e.getKey(), e.getValue());
            switch (e.getKey()) {
                case "command" -> b.setCommand(field.strings());
                case "args" -> b.setArgs(field.strings());
                case "env" -> b.setEnv(field.stringMap());
                case "workdir", "workingDir" -> b.setWorkingDir(field.text());
                case "grace", "gracePeriodMillis" -> b.setGracePeriodMillis(field.millis());
                default -> throw new IllegalArgumentException(where + ": unknown field 'exec." + e.getKey() + "'; exec has "
                        + "command, args, env, workdir, grace");
            }
        }
    }

    /** One field's value, read as the type the schema wants, or an error that names the field. */
    private record Field(String where, String name, JsonNode value) {

        IllegalArgumentException wrong(final String expected) {
            return new IllegalArgumentException(where + ": field '" + name + "' must be " + expected + ", got " + value);
        }

        String text() {
            if (!value.isTextual() && !value.isNumber() && !value.isBoolean()) {
                throw wrong("a string");
            }
            return value.asText();
        }

        int integer() {
            if (!value.canConvertToInt() || !value.isIntegralNumber()) {
                throw wrong("a whole number");
            }
            return value.intValue();
        }

        long longValue() {
            if (!value.isIntegralNumber() || !value.canConvertToLong()) {
                throw wrong("a whole number");
            }
            return value.longValue();
        }

        boolean bool() {
            if (!value.isBoolean()) {
                throw wrong("true or false");
            }
            return value.booleanValue();
        }

        /** Milliseconds as a number, or a duration such as "90s", "2h". */
        long millis() {
            if (value.isIntegralNumber()) {
                return value.longValue();
            }
            if (value.isTextual()) {
                try {
                    return new DurationConverter().convert(value.asText()).toMillis();
                } catch (Exception e) {
                    throw wrong("milliseconds or a duration such as 90s, 30m, 2h");
                }
            }
            throw wrong("milliseconds or a duration such as 90s, 30m, 2h");
        }

        Instant instant() {
            if (value.isIntegralNumber()) {
                return Instant.ofEpochMilli(value.longValue());
            }
            try {
                return Instant.parse(value.asText());
            } catch (DateTimeParseException e) {
                throw wrong("an ISO instant such as 2026-12-01T18:00:00Z or epoch milliseconds");
            }
        }

        List<String> strings() {
            if (value.isTextual()) {
                return List.of(value.asText());
            }
            if (!value.isArray()) {
                throw wrong("a list of strings");
            }
            final List<String> out = new ArrayList<>();
            value.forEach(v -> out.add(v.asText()));
            return out;
        }

        Map<String, String> stringMap() {
            if (!value.isObject()) {
                throw wrong("an object of names to strings");
            }
            final Map<String, String> out = new LinkedHashMap<>();
            value.fields().forEachRemaining(e -> out.put(e.getKey(), e.getValue().asText()));
            return out;
        }
    }
}
