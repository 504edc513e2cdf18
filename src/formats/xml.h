/* Text in XML (the SVG outputs): escaped, and only what XML 1.0 carries. */
#ifndef FLAMEBPF_XML_H
#define FLAMEBPF_XML_H

#include <stddef.h>
#include <stdio.h>

/* The number of characters in the n bytes at s, as xml__put() counts them. */
size_t xml__len(const unsigned char *s, size_t n);

/* Writes str as character data or an attribute value: markup characters as
 * entities, what XML cannot carry as U+FFFD; one longer than max characters
 * (max >= 3) is cut to max - 2 of them and "..". */
void xml__put(FILE *f, const char *str, size_t max);

#endif
