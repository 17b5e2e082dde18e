/* The pod sandbox's process (containerd's sandbox_image): it holds the pod's namespaces and
 * does nothing else. Ours because no registry is reachable here to pull one. As PID 1 of the
 * sandbox it must end on SIGTERM/SIGINT (the kernel ignores signals PID 1 has no handler for)
 * and reap any child that ends up with it. Built static: the image holds only this file. */
#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

static void on_stop(int sig) { _exit(128 + sig); }

static void on_child(int sig) {
  (void)sig;
  while (waitpid(-1, NULL, WNOHANG) > 0) {
  }
}

int main(void) {
  struct sigaction stop = {.sa_handler = on_stop};
  struct sigaction child = {.sa_handler = on_child, .sa_flags = SA_NOCLDSTOP | SA_RESTART};
  if (sigaction(SIGINT, &stop, NULL) < 0 || sigaction(SIGTERM, &stop, NULL) < 0 ||
      sigaction(SIGCHLD, &child, NULL) < 0)
    return 1;
  for (;;) pause();
}
