package io.gpupool.cli;

import io.gpupool.cli.config.ConfigFileOption;
import io.gpupool.cli.config.ExitCodes;
import io.gpupool.cli.submit.JobFlags;
import io.gpupool.cli.submit.JobSubmission;
import io.gpupool.cli.submit.StackClient;
import io.gpupool.cli.submit.SubmitCheck;
import io.gpupool.cli.submit.SubmitWait;
import io.gpupool.cli.submit.WaitFor;
import java.nio.file.Path;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Mixin;
import picocli.CommandLine.Option;
import io.gpupool.localstack.secure.StackSecurity;
import java.util.Optional;
import picocli.CommandLine;

/** {@code gpupool submit}: one job request to gpupool.jobs, checked against its pool; prints the job id, and with --wait the decision. */
@Command(name = "submit", mixinStandardHelpOptions = true, sortOptions = false,
        description = {
            "Submits a job: a flag for every field of the job request, or -f job.yaml (flags override the file).",
            "The job is checked against the pool's inventory first: one that can never run there is refused (exit code 2).",
            "Prints the job id; with --wait, then the scheduler's decision as name=value lines.",
            "  gpupool submit --tenant vision --gpus 1 --runtime-estimate 2h",
            "  gpupool submit --tenant llm --nodes 2 --gpus 8 --gpu-model H100 --topology same-leaf --wait=started",
            "  gpupool submit --tenant speech --gpu-milli 250 --gpu-memory-mib 10000 --wait=finished -- python infer.py",
            "  gpupool submit --example > job.yaml; gpupool submit -f job.yaml"})
public final class SubmitCommand implements Callable<Integer> {

    @Option(names = {"-f", "--file"}, paramLabel = "FILE",
            description = "Job file, YAML or JSON: a field per flag, named like it (gpus: 2, runtimeEstimate: 30m); "
                    + "see --example.")
    Path file;

    @Option(names = "--example", description = "Print a commented example job file and exit.")
    boolean example;

    @Option(names = "--job-id", paramLabel = "ID", description = "Job id (default: TENANT-<time>-<random>).")
    String jobId;

    @Option(names = "--no-check", description = "Send without checking the job against the pool's inventory.")
    boolean noCheck;

    @Mixin
    JobFlags job;

    @Mixin
    SubmitWait wait;

    @Mixin
    StackClient stack;

    @Mixin
    ConfigFileOption configFile;

    @CommandLine.Spec
    CommandLine.Model.CommandSpec spec;

    @Override
    public Integer call() throws Exception {
        if (example) {
            spec.commandLine().getOut().print(SubmitCheck.exampleJobFile());
            spec.commandLine().getOut().flush();
            return ExitCodes.OK.code();
        }
        final SubmitCheck.Result checked;
        final WaitFor waitFor;
        try {
            // a tenant's credentials make that tenant the default, and send to its own job topic
            final Optional<String> tenant = stack.credentialTenant();
            final JobSubmission submission = JobSubmission.build(file, jobId, job,
                    tenant.orElseGet(() -> System.getProperty("user.name", "default")));
            if (!noCheck && tenant.isPresent() && !tenant.get().equals(submission.request().getTenant())) {
                throw new IllegalArgumentException("the --command-config credentials are tenant " + tenant.get() + "'s ("
                        + StackSecurity.TENANT_SETTING + "): the scheduler rejects a job of tenant "
                        + submission.request().getTenant() + " from them (WRONG_TENANT); drop --tenant, or use that tenant's"
                        + " credentials (--no-check sends it anyway)");
            }
            waitFor = wait.waitFor();
            checked = SubmitCheck.run(submission, stack, spec, !noCheck);
            if (checked.refusal() != null) {
                spec.commandLine().getErr().printf("gpupool submit: refused, the job can never run: %s%n"
                        + "(--no-check sends it anyway)%n", checked.refusal());
                spec.commandLine().getErr().flush();
                return ExitCodes.REFUSED.code();
            }
        } catch (IllegalArgumentException e) {
            throw new CommandLine.ParameterException(spec.commandLine(), e.getMessage());
        }
        return checked.submission().send(stack, spec, waitFor, wait.timeout, checked.placedNote());
    }
}
