package io.gpupool.cli;

import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.submit.DecisionWait;
import io.gpupool.cli.submit.JobFlags;
import io.gpupool.cli.submit.JobSubmission;
import io.gpupool.cli.submit.StackClient;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import picocli.CommandLine;

/** {@code gpupool submit}: one job request to gpupool.jobs; prints the job id, and with --wait the decision. */
@Command(name = "submit", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Submits a job: a flag for every field of the job request, or -f job.json|job.yaml (flags override the file).",
            "Prints the job id; with --wait, then the scheduler's decision as name=value lines.",
            "  gpupool submit --tenant vision --gpus 1 --runtime-estimate 2h",
            "  gpupool submit --tenant llm --nodes 2 --gpus 8 --topology same-leaf --network infiniband --wait",
            "  gpupool submit --tenant speech --gpu-milli 250 --gpu-memory-mib 10000 -- python infer.py",
            "Exit codes: 0 sent (with --wait: placed or queued), 2 rejected, 4 no decision within --timeout."})
public final class SubmitCommand implements Callable<Integer> {

    @Option(names = {"-f", "--file"}, paramLabel = "FILE",
            description = "Job request as JSON or YAML: the JobRequest fields by their schema names (and jobId).")
    Path file;

    @Option(names = "--job-id", paramLabel = "ID", description = "Job id (default: TENANT-<time>-<random>).")
    String jobId;

    @Mixin
    JobFlags job;

    @Mixin
    DecisionWait wait;

    @Mixin
    StackClient stack;

    @Mixin
    ConfigFileOption configFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        final JobSubmission submission;
        try {
            submission = JobSubmission.build(file, jobId, job, System.getProperty("user.name", "default"));
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return submission.send(stack, spec, wait.await, wait.timeout);
    }
}
