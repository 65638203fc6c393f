/* Test fixture: does not compile (the build must report the compiler's error). */
int main(void)
{
	return missing_identifier;
}
