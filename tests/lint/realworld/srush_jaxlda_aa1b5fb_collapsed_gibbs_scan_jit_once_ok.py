# source: https://github.com/srush/jax-lda/blob/aa1b5fba010b08d751c6a1e84d9f2b64bd2514a2/lda.py
# observed on jax 0.10.2 CPU: runs clean; `mcmc` is jitted once at module level and compiled once for all epochs: it splits the
#   carried key into one key per token plus the next epoch's key, so every epoch and every token draws from a fresh key (the
#   initial topics come from PRNGKey(0), the sampler from PRNGKey(1)); the globals it reads (data, docs, tokens_doc) are never
#   rebound after the first trace
# gap: other
# (replaced: jax.ops.index_add(x, jax.ops.index[i, j], 1) (removed from JAX) -> x.at[i, j].add(1); the repository's
#  documents.txt (9743 paragraphs of State of the Union addresses) and stoplist.txt are served by a stand-in `open` holding the
#  first 14 paragraphs, each cut to 300 characters, and the stop list, so VOCAB 1000 -> 100 (the short text has fewer words)
#  and TOPICS 25 -> 5; added: the __main__ checks)
import jax
import jax.numpy as np
from collections import Counter
c = Counter()

_FILES = {
    "stoplist.txt": 'the and of for in a on is an this to by our that will have are with all must not more their has but can people new world from congress year which they these you years now than been who should its one make every other those them time was also there many great last first only would when most need own what because'.split(),
    "documents.txt": [
        '1914-1\t1914\tGENTLEMEN OF THE CONGRESS:',
        '1914-2\t1914\tThe session upon which you are now entering will be the closing session of  the Sixty-third Congress, a Congress, I venture to say, which will long be  remembered for the great body of thoughtful and constructive work which it  has done, in loyal response to the thought and needs of the country. I',
        '1914-3\t1914\tOur program of legislation with regard to the regulation of business is now  virtually complete. It has been put forth, as we intended, as a whole, and  leaves no conjecture as to what is to follow. The road at last lies clear  and firm before business. It is a road which it can travel without fear',
        '1914-4\t1914\tMoreover, our thoughts are now more of the future than of the past. While  we have worked at our tasks of peace the circumstances of the whole age  have been altered by war. What we have done for our own land and our own  people we did with the best that was in us, whether of character or of  intell',
        '1914-5\t1914\tWar has interrupted the means of trade not only but also the processes of  production. In Europe it is destroying men and resources wholesale and upon  a scale unprecedented and appalling, There is reason to fear that the time  is near, if it be not already at hand, when several of the countries of',
        '1914-6\t1914\tIt is of equal consequence that the nations whom Europe has usually  supplied with innumerable articles of manufacture and commerce of which  they are in constant need and without which their economic development  halts and stands still can now get only a small part of what they formerly  imported a',
        '1914-7\t1914\tIt is a very practical matter, a matter of ways and means. We have the  resources, but are we fully ready to use them? And, if we can make ready  what we have, have we the means at hand to distribute it? We are not fully  ready; neither have we the means of distribution. We are willing, but we  are',
        '1914-8\t1914\tTo speak plainly, we have grossly erred in the way in which we have stunted  and hindered the development of our merchant marine. And now, when we need  ships, we have not got them. We have year after year debated, without end  or conclusion, the best policy to pursue with regard to the use of the o',
        '1914-9\t1914\tI have come to ask you to remedy and correct these mistakes and omissions,  even at this short session of a Congress which would certainly seem to have  done all the work that could reasonably be expected of it. The time and the  circumstances are extraordinary, and so must our efforts be also.',
        '1914-10\t1914\tFortunately, two great measures, finely conceived, the one to unlock, with  proper safeguards, the resources of the national domain, the other to  encourage the use of the navigable waters outside that domain for the  generation of power, have already passed the House of Representatives and  are rea',
        '1914-11\t1914\tAnd there is another great piece of legislation which awaits and should  receive the sanction of the Senate: I mean the bill which gives a larger  measure of self-government to the people of the Philippines. How better, in  this time of anxious questioning and perplexed policy, could we show our  co',
        '1914-12\t1914\tBut I think that you will agree with me that this does not complete the  toll of our duty. How are we to carry our goods to the empty markets of  which I have spoken if we have not the ships? How are we to build up a  great trade if we have not the certain and constant means of  transportation upon',
        '1914-13\t1914\tThe case is not unlike that which confronted us when our own continent was  to be opened up to settlement and industry, and we needed long lines of  railway, extended means of transportation prepared beforehand, if  development was not to lag intolerably and wait interminably. We lavishly  subsidize',
        '1914-14\t1914\tHence the pending shipping bill, discussed at the last session but as yet  passed by neither House. In my judgment such legislation is imperatively  needed and can not wisely be postponed. The Government must open these  gates of trade, and open them wide; open them before it is altogether  profitab',
    ],
}


def open(name):  # stand-in for the repository's data files
    return iter(_FILES[name])



VOCAB = 100
TOPICS = 5
DOCUMENT = "documents.txt"
STOPLIST = "stoplist.txt"
EPOCHS = 50

# Preprocess the document
stop = set([l.strip() for l in open(STOPLIST)])
stop |= set([".", "-",  "?"])
def parse(l):
    t = l.strip().split("\t")[-1].lower().replace("?", " ?").replace(".", " .").split()
    return [w for w in t if w not in stop and len(w) > 4]
data = []
for l in open(DOCUMENT):
    tokens = parse(l)
    for t in tokens:
        c[t] += 1
vocab = {v:i for i, (v, _) in enumerate(c.most_common(VOCAB))}

data = []
doc = []
for i, l in enumerate(open(DOCUMENT)):
    tokens = parse(l)
    tokens = [t for t in tokens if t in vocab]
    data += [vocab.get(t) for t in tokens]
    doc += [i] * len(tokens)
DOCUMENTS = i + 1

SIZE = len(data)
print("Data Size", SIZE)
# Create tables
key = jax.random.PRNGKey(0)
data = np.array(data, dtype=np.int32)
docs = np.array(doc, dtype=np.int32)
topic_token = jax.random.randint(key, (SIZE,), 0, TOPICS, dtype=np.int32)

topic_word = np.zeros((TOPICS, VOCAB), dtype=np.int32).at[topic_token.reshape(-1), data.reshape(-1)].add(1)
topic_document = np.zeros((DOCUMENTS, TOPICS), dtype=np.int32).at[docs, topic_token].add(1)
tokens_doc = np.bincount(docs, length=DOCUMENTS)


# Main code
ALPHA, BETA = 0.1, 0.01


def token_loop(state, scanned):
    topic_word, topic_document, topic_count = state
    topic_token, data, doc, key = scanned

    local_tw = topic_word[:, data].at[topic_token].add(-1)
    local_td = topic_document[doc].at[topic_token].add(-1)
    local_tc = topic_count.at[topic_token].add(-1)

    # Resample
    dist = ((local_tw + BETA) / (local_tc + VOCAB * BETA)) \
           * ((local_td + ALPHA) / (tokens_doc[doc] + TOPICS * ALPHA))
    new_topic = jax.random.categorical(key, np.log(dist))

    def update(_):
        return (topic_word.at[new_topic, data].add(1).at[topic_token, data].add(-1),
                topic_document.at[doc, new_topic].add(1).at[doc, topic_token].add(-1),
                topic_count.at[new_topic].add(1).at[topic_token].add(-1),
        )
    
    return jax.lax.cond((new_topic != topic_token),
                        update,
                        lambda _ : (topic_word, topic_document, topic_count), None
    ), (new_topic, None, None, None)    
    

@jax.jit
def mcmc(state):
    topic_count, topic_word, topic_document, topic_token, key = state
    keys = jax.random.split(key, SIZE + 1)
    (topic_word, topic_document, topic_count), (topic_token, _, _, _) = \
      jax.lax.scan(token_loop, 
                (topic_word, topic_document, topic_count), 
                (topic_token, data, docs, keys[1:]))
    return topic_count, topic_word, topic_document, topic_token, keys[0]

def run(topic_word, topic_document, topic_token):
    key = jax.random.PRNGKey(1)
    topic_count = topic_word.sum(-1)
    for i in range(EPOCHS):
        (topic_count, topic_word, topic_document, topic_token, key) =  \
          mcmc((topic_count, topic_word, topic_document, topic_token, key))
    return topic_word, topic_document, topic_token
topic_word, topic_document, topic_token = run(topic_word, topic_document, topic_token) 
        
# Print out
rev = {v:k for k,v in vocab.items()}
out = topic_word / topic_word.sum(-1, keepdims=True)
for i in range(TOPICS):
    print("TOPIC", i, [rev[int(x)] for x in reversed(np.argsort(out[i])[-5:])])


if __name__ == "__main__":
    # one compilation for all EPOCHS epochs
    assert mcmc._cache_size() == 1
    state = (topic_word.sum(-1), topic_word, topic_document, topic_token, jax.random.PRNGKey(2))
    new_state = mcmc(state)
    assert mcmc._cache_size() == 1
    # the counts stay consistent with the token assignments
    assert int(new_state[1].sum()) == SIZE and int(new_state[2].sum()) == SIZE
    assert bool((new_state[0] == new_state[1].sum(-1)).all())
    recount = np.zeros((TOPICS, VOCAB), dtype=np.int32).at[new_state[3], data].add(1)
    assert bool((recount == new_state[1]).all())
    # the returned key is fresh: the next epoch resamples with other keys
    assert not bool((jax.random.key_data(new_state[4]) == jax.random.key_data(jax.random.PRNGKey(2))).all())
    print("OK")
