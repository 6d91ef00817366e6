package io.gpupool.sink.apply;

import java.util.List;
import java.util.Map;
import java.util.Optional;

/** Job parts for applier tests. */
final class Parts {
    private Parts() {
    }

    static JobPart part(final String job, final String node, final List<Integer> gpus, final List<String> command,
                        final Map<String, String> env, final Long runtimeMillis) {
        return new JobPart(job, node, "dec-" + job, "dec-" + job, "cmd-" + job + "-" + node, "name-" + job, "tenant-a", gpus,
                gpus.stream().map(i -> "GPU-" + node + "-" + i).toList(), 0, List.of(node), command, List.of(), env,
                Optional.empty(), Optional.ofNullable(runtimeMillis));
    }
}
