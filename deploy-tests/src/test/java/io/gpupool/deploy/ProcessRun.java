package io.gpupool.deploy;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.TimeUnit;

/** Runs a command to completion with a time limit, output and error merged. */
record ProcessRun(int exitCode, String output) {

    static ProcessRun run(final Path dir, final Map<String, String> env, final List<String> command)
            throws IOException, InterruptedException {
        final ProcessBuilder pb = new ProcessBuilder(command).directory(dir.toFile()).redirectErrorStream(true);
        pb.environment().putAll(env);
        final Process p = pb.start();
        final byte[] out;
        try {
            out = p.getInputStream().readAllBytes();
            if (!p.waitFor(60, TimeUnit.SECONDS)) {
                throw new IllegalStateException(command + " did not finish within 60 s");
            }
        } finally {
            p.destroyForcibly();
        }
        return new ProcessRun(p.exitValue(), new String(out, StandardCharsets.UTF_8));
    }

    static ProcessRun run(final Path dir, final List<String> command) throws IOException, InterruptedException {
        return run(dir, Map.of(), command);
    }
}
