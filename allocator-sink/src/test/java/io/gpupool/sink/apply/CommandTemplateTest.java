package io.gpupool.sink.apply;

import java.util.List;
import java.util.Map;
import java.util.Optional;
import org.junit.jupiter.api.Test;

import static org.assertj.core.api.Assertions.assertThat;

class CommandTemplateTest {

    @Test
    void dockerTemplateGetsTheGpusAndTheJobCommand() {
        final JobPart part = new JobPart("j1", "n3", "d1", "d1", "c1", "train", "team", List.of(2, 5),
                List.of("GPU-x", "GPU-y"), 1, List.of("n2", "n3"), List.of("python", "train.py"), List.of("--lr", "0.1"),
                Map.of(), Optional.empty(), Optional.empty());
        final CommandTemplate t = CommandTemplate.parse(
                "docker run --rm --name gp-{jobId}-{rank} --gpus device={gpuUuids} -e CUDA_VISIBLE_DEVICES img:1 {command}");
        assertThat(t.argv(part)).containsExactly("docker", "run", "--rm", "--name", "gp-j1-1", "--gpus",
                "device=GPU-x,GPU-y", "-e", "CUDA_VISIBLE_DEVICES", "img:1", "python", "train.py", "--lr", "0.1");
        assertThat(CommandTemplate.parse("srun -w {node} --gpus={gpus} /opt/job.sh {args}").argv(part))
                .containsExactly("srun", "-w", "n3", "--gpus=2,5", "/opt/job.sh", "--lr", "0.1");
    }
}
