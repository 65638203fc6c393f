/* Test fixture: a program whose "self-check" fails with status 3 (proves the failure exit path). */
#include "rt.h"

int main(void)
{
	volatile int status = 3;
	return status;
}
